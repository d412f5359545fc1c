/**
 * Files ssh itself creates or changes on this machine (checked with OpenSSH 9.2 and `ssh -G`), besides
 * its `-E FILE` log: the first file of `UserKnownHostsFile` (it adds the keys of hosts it learns there,
 * and rewrites it for UpdateHostKeys), the socket a ControlMaster creates at `-S PATH` / `ControlPath`,
 * and the socket `-L PATH:…` / `LocalForward PATH …` listens on (a `/` in the listening field makes it
 * a path; `StreamLocalBindUnlink` removes what is there first). ControlMaster may come from
 * ~/.ssh/config, so the socket is judged unless the line turns it off or only sends a `-O` command to a
 * running master. `ssh -G` only prints its configuration.
 *
 * ssh expands `~`, `${VAR}` and `%` tokens in these paths: `%d` is the home directory and `%C`, `%i`,
 * `%L`, `%l`, `%p`, `%u` hold no `/`, but `%h`, `%k`, `%n`, `%r` are the host, alias or user as the line
 * gives them and may (`ssh -l ../x h`): a path with those, or with `${…}`, is only known at run time.
 */
import type { CommandCall } from './command-call.ts';
import { type ScannedOption, hasOption } from './option-scan.ts';
import { type ConfigLine, readConfigLine } from './ssh-config-line.ts';
import { type Word, literalWord, runtimeWord } from './shell-words.ts';

/** Tokens with no `/` in their value, and `%%`. */
const SAFE_TOKENS = /%[%CiLlpu]/g;
/** readconf splits settings with quotes and backslashes: such a setting is not read here. */
const QUOTING = /["'\\]/;

/** A path as ssh will use it, or a word only known at run time when part of it is decided then. */
function sshPath(text: string): Word {
  const path = text.replace(/^%d(?=\/|$)/, '~');
  const decidedLater = path.includes('${') || QUOTING.test(path) || path.replace(SAFE_TOKENS, '').includes('%');
  return decidedLater ? runtimeWord(path) : literalWord(path.replace(/%%/g, '%'));
}

/** The listening side of a forward, `LISTEN:CONNECT…`, when it is a socket path (readconf's parse_forward). */
function listeningPath(spec: string): string | undefined {
  const fields: string[] = [];
  for (let rest = spec; rest !== ''; ) {
    // A field in [brackets] is taken as it is (an IPv6 address, or a path with `:`).
    const bracketed = /^\[([^\]]*)\](?::|$)/.exec(rest);
    const field = bracketed ? bracketed : /^((?:\\.|[^:\\])*)(?::|$)/.exec(rest);
    if (!field || field[0] === '') return undefined;
    fields.push(bracketed ? (field[1] ?? '') : (field[1] ?? '').replace(/\\(.)/g, '$1'));
    rest = rest.slice(field[0].length);
  }
  const [listen] = fields;
  return (fields.length === 2 || fields.length === 3) && listen?.includes('/') ? listen : undefined;
}

const configLines = (options: ScannedOption[]): ConfigLine[] =>
  options.flatMap((o) => (o.flag === '-o' && o.value?.literal ? (readConfigLine(o.value.text) ?? []) : []));

/** Whether ssh may become a ControlMaster: -M, or ControlMaster from the line (the first one counts) or from ~/.ssh/config. */
function mayBeMaster(options: ScannedOption[], lines: readonly ConfigLine[]): boolean {
  if (hasOption({ options }, '-O')) return false;
  if (hasOption({ options }, '-M')) return true;
  const master = lines.find((line) => line.key === 'controlmaster');
  return !(master && /^(no|false)$/i.test(master.setting.trim()));
}

/** Judges the files ssh writes for these options (from before and after the host). */
export function judgeSshWrites(call: CommandCall, options: ScannedOption[]): void {
  if (hasOption({ options }, '-G')) return;
  const lines = configLines(options);
  for (const line of lines) {
    const [first = 'none'] = line.setting.trim().split(/\s+/);
    if (line.key === 'userknownhostsfile' && first !== 'none') call.write(sshPath(first), `ssh -o ${line.keyword} (host keys it learns)`);
    const listen = line.key === 'localforward' ? listeningPath(line.setting.trim().replace(/\s+/, ':')) : undefined;
    if (listen) call.write(sshPath(listen), `ssh -o ${line.keyword} (socket)`);
  }
  for (const spec of options.flatMap((o) => (o.flag === '-L' && o.value ? [o.value] : []))) {
    // A forward only known at run time may listen on any path.
    const listen = spec.literal ? listeningPath(spec.text) : spec.text;
    if (listen !== undefined) call.write(spec.literal ? sshPath(listen) : spec, 'ssh -L (socket)');
  }
  if (!mayBeMaster(options, lines)) return;
  const sockets = [...options.flatMap((o) => (o.flag === '-S' && o.value ? [o.value] : [])), ...lines.flatMap((l) => (l.key === 'controlpath' ? [literalWord(l.setting.trim())] : []))];
  for (const socket of sockets) {
    if (!(socket.literal && socket.text === 'none')) call.write(socket.literal ? sshPath(socket.text) : socket, 'ssh ControlMaster (control socket)');
  }
}
