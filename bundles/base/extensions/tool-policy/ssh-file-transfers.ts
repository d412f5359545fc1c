/**
 * scp and sftp copy files to or from another machine over ssh (checked with OpenSSH 9.2's argument
 * vectors). A copy with an operand on another machine (`host:path`, `user@host:path`, `[v6]:path`,
 * `scp://[user@]host[:port]/path`; every sftp destination, `host` too) is not a local copy: only an
 * allow pattern that spells each remote covers it (`scp * backup:*`, `sftp backup`), as for rsync.
 * For each remote it runs `ssh [-o/-F/-J/-i/-c as given] [-p PORT] [-l USER] -s -- HOST sftp`
 * (`-- HOST scp -t|-f PATH` with scp -O), judged like ssh (its -o ProxyCommand and the rest), or
 * `-S PROGRAM` with those words in its place. `-D PROGRAM` runs PROGRAM here as the other side of the
 * copy, which then writes where the line cannot tell: it asks.
 *
 * scp between two local files runs `cp`: its destination is a write, as cp's; its -o/-J/-F/-S are
 * not used, but judged all the same. sftp runs the commands it reads from standard input or a `-b`
 * batch file (`!cmd` runs a command here, `get` writes here): it is opaque as well.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { type ScannedOptions, mayBeOption, optionValues, scanOptions } from './option-scan.ts';
import { type Remote, mayBeRemote, remoteOf } from './remote-operands.ts';
import { type Word, literalWord } from './shell-words.ts';
import { judgeSshOption } from './ssh-command.ts';

const SCP_VALUED = ['-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-S', '-X'];
const SFTP_VALUED = ['-B', '-b', '-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-R', '-S', '-s', '-X'];
/** Options scp and sftp hand to the ssh they run, as they are. */
const PASSED_TO_SSH = ['-o', '-F', '-J', '-i', '-c'];

/** A leading `:` is part of a local file name (scp's own rule). */
const scpRemote = (word: Word): Remote | undefined => {
  const remote = remoteOf(word, 'scp');
  return remote && (remote.host !== '' || remote.form === 'url') ? remote : undefined;
};

/** `[-o …] [-p PORT] [-l USER]` for the ssh that reaches `remote`. */
function sshOptions(scan: ScannedOptions, remote: Remote | undefined): Word[] {
  const passed = scan.options.flatMap((o) => (PASSED_TO_SSH.includes(o.flag) && o.value ? [literalWord(o.flag), o.value] : []));
  const [port] = remote?.port ? [literalWord(remote.port)] : optionValues(scan, '-P');
  return [...passed, ...(port ? [literalWord('-p'), port] : []), ...(remote?.user ? [literalWord('-l'), literalWord(remote.user)] : [])];
}

/** Runs the ssh (or `-S PROGRAM`) that reaches a remote, with `words` after its options. */
function runTransport(call: CommandCall, scan: ScannedOptions, words: Word[]): void {
  const [program] = optionValues(scan, '-S').slice(-1);
  call.run([program ?? literalWord('ssh'), ...words], program ? `${call.name} -S` : `${call.name} (remote shell)`);
  // PROGRAM may hand the ssh options on to an ssh of its own.
  if (program) for (const option of scan.options) judgeSshOption(call, option);
}

function unknownArgument(call: CommandCall, scan: ScannedOptions): void {
  const runtime = scan.runtimeWord;
  if (runtime && mayBeOption(runtime)) call.unresolved(`${call.name} has an argument only known at run time (${runtime.text}), which may be an option that runs a program (-S, -o ProxyCommand=…)`);
}

/** `scp [OPTIONS] SOURCE… TARGET`; options only before the operands. */
function runScp(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: SCP_VALUED });
  unknownArgument(call, scan);
  const operands = call.args.slice(scan.rest);
  for (const word of operands) if (mayBeRemote(word, 'scp')) call.unresolved(`scp operand ${word.text} is only known at run time and may name another machine (host:path)`);
  const remotes = operands.flatMap((word) => scpRemote(word) ?? []);
  const target = operands.length >= 2 ? operands[operands.length - 1] : undefined;
  const [server] = optionValues(scan, '-D');
  if (remotes.length === 0) {
    if (target) call.write(target, 'scp (destination)');
    // Not used for a local copy, but judged all the same.
    for (const option of scan.options) judgeSshOption(call, option);
    for (const program of optionValues(scan, '-S')) call.run([program], 'scp -S');
    for (const program of optionValues(scan, '-D')) call.run([program], 'scp -D');
    return {};
  }
  if (server) {
    call.run([server, literalWord('--'), literalWord(remotes[0]?.host ?? ''), literalWord('sftp')], 'scp -D');
    call.unresolved(`scp -D ${server.text} is the other side of the copy, on this machine: where it writes cannot be read from the line`);
    return {};
  }
  const legacy = scan.options.some((o) => o.flag === '-O');
  for (const remote of remotes) {
    const command = legacy ? [literalWord('scp'), literalWord(remote.word === target ? '-t' : '-f'), remote.path] : [literalWord('sftp')];
    runTransport(call, scan, [...sshOptions(scan, remote), ...(legacy ? [] : [literalWord('-s')]), literalWord('--'), literalWord(remote.host), ...command]);
  }
  // A remote target gets the files; a local one is written here.
  if (target && !scpRemote(target)) call.write(target, 'scp (destination)');
  return { remotes: remotes.map((r) => r.word.text) };
}

/** `sftp [OPTIONS] DESTINATION`: `[user@]host[:path]` or `sftp://[user@]host[:port][/path]`. */
function runSftp(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: SFTP_VALUED });
  unknownArgument(call, scan);
  const opaque = 'sftp runs the commands it reads from standard input or a -b batch file (!cmd runs a command here, get writes files here)';
  const direct = optionValues(scan, '-D');
  // -D talks to a server program run here, not to another machine.
  for (const server of direct) call.runCode(server, 'sftp -D');
  const destination = call.args[scan.rest];
  if (direct.length > 0 || !destination) return { opaque };
  const remote = remoteOf(destination, 'sftp');
  // A bare `[user@]host` is handed to ssh as it is.
  const host = remote ? literalWord(remote.host) : destination;
  const [subsystem = literalWord('sftp')] = optionValues(scan, '-s').slice(-1);
  // A subsystem name is requested with -s; a path is run as the remote command.
  const mode = subsystem.text.includes('/') ? [] : [literalWord('-s')];
  runTransport(call, scan, [...sshOptions(scan, remote), ...mode, literalWord('--'), host, subsystem]);
  return { opaque, remotes: [destination.text] };
}

export const sshFileTransferHandlers = (): Array<[string, CommandHandler]> => [
  ['scp', runScp],
  ['sftp', runSftp],
];
