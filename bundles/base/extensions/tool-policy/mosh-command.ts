/**
 * `mosh [OPTIONS] [--] [user@]host [COMMAND…]` (checked against mosh 1.4's mosh.pl): it runs
 * `SSH -n -tt -S none -o ProxyCommand=… [user@]host -- 'SERVER new …'` to start the server on the
 * other machine, then the client here. `--ssh=CMD` is SSH, split by Perl's shellwords and run without
 * a shell (judged as that command with ssh's words after it); `--server=CMD` is pasted into the remote
 * command line, so it runs on the other machine like ssh's command; `--client=PATH` runs PATH here.
 * With `--local`, SERVER runs here (`SERVER new … -- COMMAND`) and starts COMMAND, or a shell.
 *
 * Options are read by Getopt::Long: anywhere until `--` (it permutes), with `-` or `--`, `=VALUE` or
 * the next word, in any case, and abbreviated to any unique prefix (`--cl=x` is `--client=x`).
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { mayBeOption } from './option-scan.ts';
import { perlShellWords } from './perl-shell-words.ts';
import { type Word, literalWord } from './shell-words.ts';

const VALUED = ['client', 'server', 'predict', 'port', 'family', 'p', 'ssh', 'bind-server', 'experimental-remote-ip'];
const FLAGS = ['a', 'n', '4', '6', 'ssh-pty', 'nossh-pty', 'no-ssh-pty', 'init', 'noinit', 'no-init', 'local', 'help', 'version', 'fake-proxy', 'nofake-proxy', 'no-fake-proxy'];
const OPAQUE = 'mosh runs a shell or its command on another machine, over ssh, which reads ~/.ssh/config';

interface MoshLine {
  values: Map<string, Word[]>;
  flags: Set<string>;
  operands: Word[];
}

/** Getopt::Long's reading of a name: itself, else the one option it is a unique prefix of (case ignored). */
function optionName(given: string): string | undefined {
  const name = given.toLowerCase();
  const names = [...VALUED, ...FLAGS];
  if (names.includes(name)) return name;
  const hits = names.filter((n) => n.startsWith(name));
  return hits.length === 1 ? hits[0] : undefined;
}

function readLine(call: CommandCall): MoshLine {
  const line: MoshLine = { values: new Map(), flags: new Set(), operands: [] };
  const args = call.args;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal && mayBeOption(word)) {
      call.unresolved(`mosh has an argument only known at run time (${word.text}), which may be --ssh=CMD or --client=PATH`);
      continue;
    }
    if (!word.literal || !word.text.startsWith('-') || word.text === '-') {
      line.operands.push(word);
      continue;
    }
    if (word.text === '--') {
      line.operands.push(...args.slice(i + 1));
      break;
    }
    const body = word.text.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = optionName(eq < 0 ? body : body.slice(0, eq));
    if (!name) continue;
    if (!VALUED.includes(name)) {
      line.flags.add(name);
      continue;
    }
    const value = eq >= 0 ? literalWord(body.slice(eq + 1)) : args[++i];
    if (value) line.values.set(name, [...(line.values.get(name) ?? []), value]);
  }
  return line;
}

/** The words `--ssh=CMD` stands for, or undefined when they cannot be read before the line runs. */
function sshProgram(call: CommandCall, command: Word): Word[] | undefined {
  const words = command.literal ? perlShellWords(command.text) : undefined;
  if (words && words.length > 0) return words.map(literalWord);
  call.unresolved(`mosh --ssh=${command.text} cannot be split into a command before the line runs`);
  // Still judged as written, so that a deny rule sees the program in it.
  call.runCode(command, 'mosh --ssh');
  return undefined;
}

function runMosh(call: CommandCall): CommandFacts {
  const line = readLine(call);
  // --fake-proxy is mosh as ssh's ProxyCommand: it only relays bytes to host:port.
  if (line.flags.has('fake-proxy')) return {};
  const last = (name: string) => line.values.get(name)?.slice(-1)[0];
  const [host, ...command] = line.operands;
  for (const client of line.values.get('client') ?? []) call.run([client, literalWord('-c')], 'mosh --client');
  const server = last('server') ?? literalWord('mosh-server');
  if (line.flags.has('local')) {
    call.run([server, literalWord('new'), literalWord('…'), ...(command.length > 0 ? [literalWord('--'), ...command] : [])], 'mosh --local');
    // mosh-server starts COMMAND here, or the user's shell.
    if (command.length > 0) call.run(command, 'mosh --local');
    else call.unresolved('mosh --local without a command starts a shell here that reads commands the line does not show');
    return {};
  }
  if (!host) return {};
  const remote: Word = { ...server, text: `${server.text} 'new' …${command.length > 0 ? ` -- ${command.map((w) => w.text).join(' ')}` : ''}` };
  const tail = [...['-n', '-tt', '-S', 'none'].map(literalWord), host, literalWord('--'), remote];
  // Each --ssh counts in turn (the last is used): judge them all.
  const programs = (line.values.get('ssh') ?? []).map((value) => sshProgram(call, value));
  for (const program of programs.length > 0 ? programs : [[literalWord('ssh')]]) if (program) call.run([...program, ...tail], programs.length > 0 ? 'mosh --ssh' : 'mosh (remote shell)');
  return { opaque: OPAQUE };
}

export const moshHandlers = (): Array<[string, CommandHandler]> => [['mosh', runMosh]];
