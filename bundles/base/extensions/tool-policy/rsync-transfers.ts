/**
 * What an `rsync SRC… DEST` does besides copying: it writes DEST (and its backup, partial and
 * temporary directories, relative to DEST), `--write-batch=FILE` also writes `FILE.sh`, and
 * `--remove-source-files` deletes the sources (judged as `rm -r` of them).
 *
 * An operand on another machine (`host:path`, `user@host:path`, `host::module`, `rsync://host/…`)
 * makes it a transfer off or onto this machine, not a local copy: the command is marked `remote`,
 * and only an allow pattern that spells a remote covers it (`rsync -a * backup:*`; `allow: rsync *`
 * stays a rule for local copies). Over a remote shell (`host:path`, or any remote with `-e`) rsync
 * runs `ssh [-l USER] HOST RSYNC_PATH --server … . PATH` (checked with rsync 3.5), which reads
 * `~/.ssh/config` (ProxyCommand, LocalCommand run anything): it is judged as that ssh command, or
 * as the `-e` command followed by those words, the command split into words as rsync splits it, with
 * no shell (see rsync-shell-words.ts; `-e 'sh -c'` runs the host as shell code).
 * `--rsync-path` also stays judged as code of this machine: the remote may be this one.
 * `-M OPTION` passes OPTION to the receiving side, which for a local copy is a second rsync here:
 * its options are judged as that rsync's.
 */
import { posix } from 'node:path';
import type { CommandCall, CommandFacts } from './command-call.ts';
import { type PermutedOptions, hasOption, optionValues } from './option-scan.ts';
import { type Remote, mayBeRemote, remoteOf } from './remote-operands.ts';
import { rsyncShellWords } from './rsync-shell-words.ts';
import { type Word, literalWord, runtimeWord } from './shell-words.ts';

const rsyncRemote = (word: Word) => remoteOf(word, 'rsync');
/** `host:path` is reached over a remote shell; `host::module` and `rsync://` over a socket to rsync's daemon. */
const overShell = (r: Remote) => r.form === 'colon';

/**
 * What rsync appends to the remote shell command: `[-l USER] HOST RSYNC_PATH --server [--sender] … . PATH`
 * (`--server --daemon .` for a daemon reached over the shell); `…` stands for its option letters.
 */
function remoteShellArguments(remote: Remote, pulls: boolean, scan: PermutedOptions): Word[] {
  const [path] = optionValues(scan, '--rsync-path');
  const program = path?.literal ? path.text.split(/\s+/).filter((w) => w !== '').map(literalWord) : [path ?? literalWord('rsync')];
  const user = remote.user ? [literalWord('-l'), literalWord(remote.user)] : [];
  const server = overShell(remote) ? [...(pulls ? ['--sender'] : []), '…', '.'].map(literalWord).concat(remote.path) : ['--daemon', '.'].map(literalWord);
  return [...user, literalWord(remote.host), ...program, literalWord('--server'), ...server];
}

/** Runs the `-e` command with `args` after it, as rsync does: split into words by rsync itself, not by a shell. */
function runRemoteShell(call: CommandCall, shell: Word, args: readonly Word[]): void {
  // Only known at run time (which makes the line unjudgeable): still read as written, so that a deny rule sees the program in it.
  if (!shell.literal) return call.runCode(shell, 'rsync -e');
  const words = rsyncShellWords(shell.text);
  // An unclosed quote: rsync stops with a syntax error before it runs anything.
  if (words === undefined) return;
  call.run([...words.map(literalWord), ...args], 'rsync -e');
}

/** Directories the receiving rsync writes; `perFile`: relative to each file's directory, not DEST's. */
const RECEIVER_DIRS = [
  { how: 'rsync --backup-dir', flags: ['--backup-dir'], perFile: false },
  { how: 'rsync --temp-dir', flags: ['-T', '--temp-dir'], perFile: false },
  { how: 'rsync --partial-dir', flags: ['--partial-dir'], perFile: true },
] as const;

/** A directory named relative to DEST (`--backup-dir`, `-T`): under DEST, or beside it when DEST is a file. */
function underDestination(call: CommandCall, destination: Word, dir: Word, how: string, perFile: boolean): void {
  if (!dir.literal || dir.text.startsWith('/') || dir.text.startsWith('~')) {
    call.write(dir, how);
    return;
  }
  // --partial-dir is relative to each file's directory: with `..` in it, where it lands depends on depth.
  if (perFile && dir.text.split('/').includes('..')) {
    call.write(runtimeWord(`${destination.text}/…/${dir.text}`), how);
    return;
  }
  call.write(literalWord(posix.join(destination.text, dir.text)), how);
  call.write(literalWord(posix.join(posix.dirname(destination.text), dir.text)), how);
}

export function rsyncEffects(call: CommandCall, scan: PermutedOptions): CommandFacts {
  if (hasOption(scan, '--daemon')) return { opaque: 'rsync --daemon runs the commands its configuration names (pre-xfer exec, post-xfer exec)' };
  const operands = scan.operands;
  for (const word of operands) if (mayBeRemote(word, 'rsync')) call.unresolved(`rsync operand ${word.text} is only known at run time and may name another machine (host:path)`);
  const remotes = operands.flatMap((word) => rsyncRemote(word) ?? []);
  const [remote] = remotes;
  const destination = operands.length >= 2 && !hasOption(scan, '--list-only') ? operands[operands.length - 1] : undefined;
  const localDestination = destination && !rsyncRemote(destination) ? destination : undefined;
  const shells = optionValues(scan, '-e', '--rsh');
  // A daemon is reached over a socket unless -e names a shell; RSYNC_RSH in the environment does not change that.
  if (remote && (shells.length > 0 || overShell(remote))) {
    const args = remoteShellArguments(remote, remote.word !== destination, scan);
    if (shells.length === 0) call.run([literalWord('ssh'), ...args], 'rsync (remote shell)');
    for (const shell of shells) runRemoteShell(call, shell, args);
  } else {
    // Not used without a remote, but judged all the same.
    for (const shell of shells) runRemoteShell(call, shell, []);
  }
  for (const file of [...optionValues(scan, '--write-batch'), ...optionValues(scan, '--only-write-batch')]) {
    call.write(file, 'rsync --write-batch');
    // rsync also writes FILE.sh, the script that replays the batch.
    call.write(file.literal ? literalWord(`${file.text}.sh`) : file, 'rsync --write-batch (FILE.sh)');
  }
  if (localDestination) call.write(localDestination, 'rsync (destination)');
  for (const { how, flags, perFile } of RECEIVER_DIRS) {
    for (const dir of optionValues(scan, ...flags)) {
      if (localDestination) underDestination(call, localDestination, dir, how, perFile);
      // Without a destination (the options of an `-M` receiver), as named; a remote receiver writes on its own machine.
      else if (!remote) call.write(dir, how);
    }
  }
  // The receiving side of a local copy is a second rsync on this machine; of a remote one, the other machine.
  if (!remote) for (const option of optionValues(scan, '-M', '--remote-option')) call.run([literalWord('rsync'), option], 'rsync -M');
  if (hasOption(scan, '--remove-source-files')) {
    const sources = (destination ? operands.slice(0, -1) : []).filter((w) => !rsyncRemote(w));
    if (sources.length > 0) call.run([literalWord('rm'), literalWord('-r'), ...sources], 'rsync --remove-source-files');
  }
  return remotes.length > 0 ? { remotes: remotes.map((r) => r.word.text) } : {};
}
