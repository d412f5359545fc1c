/**
 * What ssh runs on this machine, besides its command on the other one (checked with OpenSSH 9.2):
 * `-o ProxyCommand=CMD` and `LocalCommand` (the user's shell runs them), `KnownHostsCommand` and
 * `XAuthLocation` (run with `list DISPLAY` by the shell) are commands, judged like the line; the
 * keyword is case-insensitive and `=` optional (`-o 'proxycommand rm x'`). `-J HOST` / `ProxyJump`
 * becomes the shell code `ssh -W '[%h]:%p' HOST` with HOST pasted in (`-J 'x|rm'` runs rm). ssh
 * reads options after the host too (`ssh h -o ProxyCommand=… ls`), up to the command.
 *
 * What cannot be judged asks: `-F FILE` (its ProxyCommand, LocalCommand, `Match exec` run anything;
 * `-F none` reads none), a library ssh loads (`-I`, `PKCS11Provider`, `SecurityKeyProvider`), and a
 * word only known at run time where ssh may read it as an option (`ssh "$opt" h`, `ssh h "$cmd"`).
 * `-E FILE` is a write, and so are the files ssh-writes.ts names. ssh refuses `Include`, `Match` and `Host` in `-o`, and host and user names
 * with shell characters, so `%h` and `%r` in these commands add no code. ssh itself stays opaque:
 * `~/.ssh/config` is read on every call.
 *
 * `ssh-copy-id` and `autossh` pass their options to the ssh they run, judged as that ssh; ssh-copy-id
 * also `eval`s `cat "FILE"` for `-i FILE`. What ssh-keygen writes and loads: ssh-keygen.ts.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { type ScannedOption, mayBeOption, optionValues, scanOptions } from './option-scan.ts';
import { readConfigLine } from './ssh-config-line.ts';
import { runSshKeygen } from './ssh-keygen.ts';
import { judgeSshWrites } from './ssh-writes.ts';
import { type Word, literalWord } from './shell-words.ts';

/** ssh's getopt string, the options that take a value. */
const SSH_VALUED = ['-b', '-c', '-e', '-i', '-l', '-m', '-o', '-p', '-B', '-D', '-E', '-F', '-I', '-J', '-L', '-O', '-P', '-Q', '-R', '-S', '-w', '-W'];
/** ssh_config keywords (lower case) whose value is a command ssh runs on this machine. */
const COMMAND_KEYWORDS = new Set(['proxycommand', 'localcommand', 'knownhostscommand', 'xauthlocation']);
/** ssh_config keywords (lower case) naming a library ssh loads, and the values that load none. */
const LIBRARY_KEYWORDS = new Set(['pkcs11provider', 'securitykeyprovider']);
const NO_LIBRARY = new Set(['none', 'internal']);

const OPAQUE = "ssh runs what ~/.ssh/config names on this machine (ProxyCommand, LocalCommand, Match exec), and its command on another";

/** The shell code ssh runs for a jump host: the host text is pasted into it as written. */
function jump(call: CommandCall, host: Word, label: string): void {
  if (host.literal && host.text.toLowerCase() === 'none') return;
  call.runCode({ ...host, text: `ssh -W '[%h]:%p' ${host.text}` }, label);
}

function configOption(call: CommandCall, value: Word): void {
  if (!value.literal) return call.unresolved(`ssh -o ${value.text} is only known at run time: it may be a ProxyCommand`);
  const { keyword = '', key = '', setting = '' } = readConfigLine(value.text) ?? {};
  if (COMMAND_KEYWORDS.has(key) && setting.toLowerCase() !== 'none') call.runCode(literalWord(setting), `ssh -o ${keyword}`);
  if (key === 'proxyjump') jump(call, literalWord(setting), `ssh -o ${keyword}`);
  if (LIBRARY_KEYWORDS.has(key) && !NO_LIBRARY.has(setting.toLowerCase())) call.unresolved(`ssh -o ${keyword} loads the library ${setting} into ssh, which runs its code`);
}

/** Judges one option of ssh, or one scp and sftp pass on to it (`-o`, `-F`, `-J`). */
export function judgeSshOption(call: CommandCall, option: ScannedOption): void {
  const value = option.value;
  if (!value) return;
  if (option.flag === '-o') configOption(call, value);
  if (option.flag === '-J') jump(call, value, 'ssh -J');
  if (option.flag === '-F' && !(value.literal && (value.text === 'none' || value.text === '/dev/null'))) {
    call.unresolved(`ssh -F ${value.text} reads that file as its configuration, whose ProxyCommand, LocalCommand and Match exec run commands here`);
  }
  if (option.flag === '-I') call.unresolved(`ssh -I ${value.text} loads that PKCS#11 library, which runs its code`);
  if (option.flag === '-E') call.write(value, 'ssh -E');
}

/** `ssh [OPTIONS] HOST [OPTIONS] [COMMAND…]`: options before the host and again after it, unless `--` ended them. */
function runSsh(call: CommandCall): CommandFacts {
  const args = call.args;
  const before = scanOptions(args, { valued: SSH_VALUED });
  const after = before.ended || args.length <= before.rest + 1 ? undefined : scanOptions(args.slice(before.rest + 1), { valued: SSH_VALUED });
  for (const scan of [before, after]) {
    const runtime = scan?.runtimeWord;
    if (runtime && mayBeOption(runtime)) call.unresolved(`ssh has an argument only known at run time (${runtime.text}) where it reads options (-o ProxyCommand=…)`);
  }
  const options = [...before.options, ...(after?.options ?? [])];
  for (const option of options) judgeSshOption(call, option);
  judgeSshWrites(call, options);
  return { opaque: OPAQUE };
}

/** `ssh-copy-id [-i FILE] [-p PORT] [-F CONFIG] [-o OPTION]… [-f] [-n] [-s] [user@]host`. */
function runSshCopyId(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: ['-i', '-o', '-p', '-F', '-t'] });
  if (scan.runtimeWord && mayBeOption(scan.runtimeWord)) call.unresolved(`ssh-copy-id has an argument only known at run time (${scan.runtimeWord.text}), which may be an option it passes to ssh`);
  // It reads the key with `eval cat "FILE"`: quotes and $(…) in FILE are code.
  for (const file of optionValues(scan, '-i')) call.runCode({ ...file, text: `cat "${file.text}"` }, 'ssh-copy-id -i');
  const passed = scan.options.flatMap((o) => (['-o', '-p', '-F'].includes(o.flag) && o.value ? [literalWord(o.flag), o.value] : []));
  const host = call.args[scan.rest];
  if (host) call.run([literalWord('ssh'), ...passed, host, literalWord('…')], 'ssh-copy-id');
  return {};
}

/** `autossh [-V] [-M PORT[:ECHO]] [-f] SSH-ARGS…`: the rest is ssh's command line. */
function runAutossh(call: CommandCall): CommandFacts {
  const args = [...call.args];
  const own = (w: Word | undefined) => w?.literal && (w.text === '-f' || w.text === '-V' || w.text.startsWith('-M'));
  while (own(args[0])) {
    const word = args.shift();
    if (word?.text === '-M') args.shift();
  }
  call.run([literalWord('ssh'), ...args], 'autossh');
  return {};
}

export const sshHandlers = (): Array<[string, CommandHandler]> => [
  ['ssh', runSsh],
  ['ssh-copy-id', runSshCopyId],
  ['autossh', runAutossh],
  ['ssh-keygen', runSshKeygen],
];
