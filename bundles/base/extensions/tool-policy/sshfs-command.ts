/**
 * `sshfs [user@]host:[dir] MOUNTPOINT [options]` mounts a directory of another machine over MOUNTPOINT,
 * which is a write here; the copy goes to or from that machine, so only an allow pattern that spells
 * the remote covers it (like scp). It reads its arguments with libfuse's fuse_opt_parse (checked
 * against sshfs 3.7): options anywhere until `--`, one option a word (`-f`, `-p PORT`, `-pPORT`,
 * `-F FILE`), and `-o A,B` / `-oA,B` groups split at commas (`\,` and `\NNN` escape).
 *
 * It then runs `ssh -x -a -oClearAllForwardings=yes [-oKEY=VALUE…] [-oPort=P] [-F FILE] -2 HOST -s sftp`
 * (`sftp_server=PATH` with a `/` is run as the remote command instead), judged as that ssh: an `-o`
 * item `KEY=VALUE` that is not sshfs's own goes to ssh, so `-o ProxyCommand=…` runs here. With
 * `-o ssh_command=CMD` the program is CMD, split at spaces with no shell (older sshfs drops a backslash
 * before any character, newer keeps `\ ` in the word: a CMD with a backslash cannot be judged). `ssh_command` written any other way
 * (`-o ssh_command CMD` is not read by sshfs) and an option only known at run time ask.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { mayBeOption } from './option-scan.ts';
import { remoteOf } from './remote-operands.ts';
import { type Word, literalWord } from './shell-words.ts';

/** sshfs's own `-o NAME=VALUE` options (the rest of `KEY=VALUE` goes to ssh, or is a FUSE mount option). */
const OWN_VALUED = new Set(['directport', 'ssh_command', 'sftp_server', 'max_read', 'max_write', 'ssh_protocol', 'workaround', 'idmap', 'uidfile', 'gidfile', 'nomap', 'dir_cache', 'max_conns', 'cache']);

interface SshfsLine {
  /** `-o` items, unescaped. */
  items: string[];
  /** Words ssh is given for `-p`, `-C`, `-F`. */
  sshWords: Word[];
  operands: Word[];
}

/** fuse_opt's option group: items split at commas; a backslash escapes the next character, or `\NNN` an octal one. */
function groupItems(group: string): string[] {
  const items: string[] = [];
  let item = '';
  for (let i = 0; i < group.length; i++) {
    const c = group[i] ?? '';
    const octal = /^[0-3][0-7][0-7]/.exec(group.slice(i + 1));
    if (c === '\\' && octal) {
      item += String.fromCharCode(Number.parseInt(octal[0], 8));
      i += 3;
    } else if (c === '\\' && i + 1 < group.length) item += group[++i] ?? '';
    else if (c === ',') {
      items.push(item);
      item = '';
    } else item += c;
  }
  return [...items, item];
}

function readLine(call: CommandCall): SshfsLine {
  const line: SshfsLine = { items: [], sshWords: [], operands: [] };
  const args = call.args;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal) {
      if (mayBeOption(word)) call.unresolved(`sshfs has an argument only known at run time (${word.text}), which may be -o ssh_command=CMD or an ssh option (ProxyCommand=…)`);
      else line.operands.push(word);
      continue;
    }
    const text = word.text;
    if (text === '--') {
      line.operands.push(...args.slice(i + 1));
      break;
    }
    if (!text.startsWith('-')) line.operands.push(word);
    else if (text.startsWith('-o')) {
      const group = text === '-o' ? args[++i] : literalWord(text.slice(2));
      if (group && !group.literal) call.unresolved(`sshfs -o ${group.text} is only known at run time: it may be ssh_command=CMD or an ssh option (ProxyCommand=…)`);
      else if (group) line.items.push(...groupItems(group.text));
    } else if (text.startsWith('-p') || text.startsWith('-F')) {
      const value = text.length > 2 ? literalWord(text.slice(2)) : args[++i];
      if (value) line.sshWords.push({ ...value, text: `${text.startsWith('-p') ? '-oPort=' : '-F'}${value.text}` });
    } else if (text === '-C') line.sshWords.push(literalWord('-oCompression=yes'));
  }
  return line;
}

/** The program sshfs runs instead of ssh: CMD split at spaces. */
function sshCommand(call: CommandCall, command: string): Word[] {
  // Older sshfs removes a backslash before any character; newer versions keep it before a space.
  if (command.includes('\\')) call.unresolved(`sshfs -o ssh_command=${command} has a backslash, which sshfs versions split differently: what runs cannot be read from the line`);
  const words = command.replace(/\\(.)/g, '$1').split(' ').filter((w) => w !== '');
  // An empty ssh_command leaves ssh in place.
  return (words.length > 0 ? words : ['ssh']).map(literalWord);
}

function runSshfs(call: CommandCall): CommandFacts {
  const line = readLine(call);
  const [source, mountpoint] = orderOperands(line.operands);
  if (mountpoint) call.write(mountpoint, 'sshfs (mount point)');
  const commands: Word[][] = [];
  const toSsh: Word[] = [];
  let server = 'sftp';
  for (const item of line.items) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (name === 'ssh_command' && eq >= 0) commands.push(sshCommand(call, item.slice(eq + 1)));
    else if (name.toLowerCase().startsWith('ssh_command')) call.unresolved(`sshfs -o ${item}: sshfs reads ssh_command only as ssh_command=CMD; write it that way so that CMD can be judged`);
    else if (name === 'sftp_server' && eq >= 0) server = item.slice(eq + 1);
    else if (eq > 0 && !OWN_VALUED.has(name)) toSsh.push(literalWord(`-o${item}`));
  }
  const remote = source ? remoteOf(source, 'sshfs') : undefined;
  const host = remote ? literalWord(`${remote.user ? `${remote.user}@` : ''}${remote.host}`) : (source ?? literalWord(''));
  const tail = ['-x', '-a', '-oClearAllForwardings=yes'].map(literalWord).concat(toSsh, line.sshWords, [literalWord('-2'), host], (server.includes('/') ? [server] : ['-s', server]).map(literalWord));
  // Each ssh_command counts (the last one is used): judge them all.
  for (const program of commands.length > 0 ? commands : [[literalWord('ssh')]]) call.run([...program, ...tail], commands.length > 0 ? 'sshfs -o ssh_command' : 'sshfs (remote shell)');
  return source ? { remotes: [source.text] } : {};
}

/** sshfs takes the first operand with a `:` as `host:dir`, and the first other one as the mount point. */
function orderOperands(operands: readonly Word[]): [Word | undefined, Word | undefined] {
  const source = operands.find((w) => w.text.includes(':'));
  return [source, operands.find((w) => w !== source)];
}

export const sshfsHandlers = (): Array<[string, CommandHandler]> => [['sshfs', runSshfs]];
