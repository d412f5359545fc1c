/**
 * Programs with an option whose value is a command they run: `tar --to-command=CMD`, `-I CMD`,
 * `-F CMD`, `--checkpoint-action=exec=CMD`, `--rsh-command=CMD`; `split --filter=CMD`;
 * `rsync -e CMD` / `--rsh` / `--rsync-path`; `man -P CMD` / `-H CMD`; `cpio --rsh-command=CMD`
 * (zip has a parser of its own: zip-command.ts). The command is judged like the line. These programs read
 * options after their operands too (GNU getopt permutes) and abbreviated (`--to-com`), so every
 * word before `--` is read, and one only known at run time that may be such an option (`"$x"`)
 * cannot be judged.
 *
 * What they write is judged like any write (a `file-system__write` path; outside the workspace it
 * is never allowed): the archive `tar -c/-r/-u -f` makes, the directory `tar -x -C DIR` extracts
 * into (`tar -x -P` writes member paths as stored, anywhere, and `tar -x -T FILE` into the
 * directories FILE's `-C` lines name: neither can be judged), the output prefix of `split`, their
 * log and snapshot files; `tar --remove-files` is also judged as `rm` of its inputs. What an rsync
 * transfer writes, deletes and reaches is in rsync-transfers.ts.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { type OptionSpec, type PermutedOptions, hasOption, optionValues, scanPermuted } from './option-scan.ts';
import { rsyncEffects } from './rsync-transfers.ts';
import { type Word, literalWord } from './shell-words.ts';

interface ProgramSpec extends OptionSpec {
  /** Options whose value is a command line the program runs. */
  code: readonly string[];
  /** Options whose value runs a command after a prefix (`--checkpoint-action=exec=CMD`). */
  prefixedCode?: Readonly<Record<string, string>>;
  /** Options naming a file that tells the program which commands to run: it is opaque with them. */
  opaque?: readonly string[];
  /** The first word may be letters of options without their dashes, values following in order (`tar cfI a.tar CMD`). */
  bundledFirstWord?: boolean;
  /** Options whose value is a file or directory the program writes (`rsync --log-file`, `tar -g`). */
  writes?: readonly string[];
  /** What the operands and mode options make it write or delete (`rsync SRC DEST`, `tar -x -C DIR`). */
  effects?: (call: CommandCall, scan: PermutedOptions) => CommandFacts | undefined;
}

const rm = (label: string, call: CommandCall, files: readonly Word[]) => {
  if (files.length > 0) call.run([literalWord('rm'), literalWord('-r'), ...files], label);
};

/** tar modes that only read the archive; every other mode (`-c`, `-r`, `-u`, `-A`, `--delete`) writes it. */
const TAR_READS_ARCHIVE = ['-t', '--list', '-d', '--diff', '--compare', '-x', '--extract', '--get'];

function tarEffects(call: CommandCall, scan: PermutedOptions): CommandFacts {
  if (hasOption(scan, '-x', '--extract', '--get')) {
    // Members land under the current directory or -C DIR (GNU tar drops a leading `/` and skips `..` members) unless -P.
    for (const dir of optionValues(scan, '-C', '--directory')) call.write(dir, 'tar -x -C');
    for (const dir of optionValues(scan, '--one-top-level')) call.write(dir, 'tar --one-top-level');
    if (hasOption(scan, '-P', '--absolute-names')) call.unresolved('tar -x -P (--absolute-names) writes each member to the path stored in the archive, which may be anywhere');
    // GNU tar reads `-C DIR` lines in a -T file too: they move where the members after them land.
    const lists = optionValues(scan, '-T', '--files-from');
    if (lists.length > 0 && !hasOption(scan, '-O', '--to-stdout', '--to-command')) {
      call.unresolved(`tar -x -T ${lists[0]?.text ?? ''} may extract anywhere: GNU tar obeys -C DIR lines in that file`);
    }
  } else if (!hasOption(scan, ...TAR_READS_ARCHIVE)) {
    for (const archive of optionValues(scan, '-f', '--file')) if (archive.text !== '-') call.write(archive, 'tar -f');
  }
  if (hasOption(scan, '--remove-files')) rm('tar --remove-files', call, scan.operands);
  return {};
}

/** `split [FILE [PREFIX]]`: the pieces are PREFIXaa, PREFIXab… */
function splitEffects(call: CommandCall, scan: PermutedOptions): CommandFacts {
  const prefix = scan.operands[1];
  if (prefix) call.write(prefix, 'split (output prefix)');
  return {};
}

const PROGRAMS: Record<string, ProgramSpec> = {
  tar: {
    valued: [
      '-b', '--blocking-factor', '-C', '--directory', '-f', '--file', '-F', '--info-script', '--new-volume-script', '-g', '--listed-incremental', '-H', '--format',
      '-I', '--use-compress-program', '-K', '--starting-file', '-L', '--tape-length', '-N', '--newer', '--after-date', '-T', '--files-from', '-V', '--label',
      '-X', '--exclude-from', '--exclude', '--to-command', '--checkpoint-action', '--rsh-command', '--rmt-command', '--index-file', '--owner', '--group', '--mode',
      '--mtime', '--transform', '--xform', '--volno-file', '--record-size', '--suffix', '--strip-components', '--newer-mtime', '--exclude-tag', '--exclude-tag-under',
      '--exclude-tag-all', '--exclude-ignore', '--exclude-ignore-recursive', '--pax-option', '--quoting-style', '--level', '--warning', '--owner-map', '--group-map',
    ],
    flags: ['--checkpoint', '--extract', '--get', '--list', '--diff', '--compare', '--create', '--append', '--update', '--absolute-names', '--remove-files'],
    optionalValue: ['--one-top-level'],
    code: ['-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script', '--to-command', '--rsh-command', '--rmt-command'],
    prefixedCode: { '--checkpoint-action': 'exec=' },
    bundledFirstWord: true,
    writes: ['-g', '--listed-incremental', '--index-file', '--volno-file'],
    effects: tarEffects,
  },
  split: {
    valued: ['-a', '--suffix-length', '--additional-suffix', '-b', '--bytes', '-C', '--line-bytes', '-l', '--lines', '-n', '--number', '-t', '--separator', '--filter'],
    code: ['--filter'],
    effects: splitEffects,
  },
  rsync: {
    valued: [
      '-e', '--rsh', '--rsync-path', '-f', '--filter', '-B', '--block-size', '-T', '--temp-dir', '-M', '--remote-option', '-@', '--modify-window', '--exclude',
      '--include', '--exclude-from', '--include-from', '--files-from', '--log-file', '--log-file-format', '--out-format', '--password-file', '--partial-dir',
      '--compare-dest', '--copy-dest', '--link-dest', '--backup-dir', '--suffix', '--chmod', '--chown', '--usermap', '--groupmap', '--timeout', '--contimeout',
      '--port', '--sockopts', '--bwlimit', '--max-size', '--min-size', '--max-delete', '--compress-choice', '--compress-level', '--checksum-choice', '--iconv',
      '--write-batch', '--only-write-batch', '--read-batch', '--protocol', '--outbuf', '--address', '--early-input', '--copy-as', '--config', '--dparam',
      '--info', '--debug', '--stderr', '--confine-root', '--max-alloc', '--compress-threads', '--skip-compress', '--stop-after', '--stop-at', '--checksum-seed',
      '--cc', '--zc', '--zl', '--zt', '--log-format', '--time-limit',
    ],
    flags: ['--daemon', '--list-only', '--remove-source-files'],
    code: ['--rsync-path'],
    writes: ['--log-file'],
    effects: rsyncEffects,
  },
  man: {
    valued: ['-C', '--config-file', '-M', '--manpath', '-P', '--pager', '-r', '--prompt', '-E', '--encoding', '-L', '--locale', '-m', '--systems', '-S', '-s', '--sections', '-e', '--extension', '-p', '--preprocessor', '-R', '--recode'],
    optionalValue: ['-H', '--html', '-T', '--troff-device', '-X', '--gxditview'],
    code: ['-P', '--pager', '-H', '--html'],
    opaque: ['-C', '--config-file'],
  },
  cpio: {
    valued: ['-C', '--io-size', '-D', '--directory', '-E', '--pattern-file', '-F', '--file', '-H', '--format', '-I', '-M', '--message', '-O', '-R', '--owner', '--block-size', '--rsh-command'],
    code: ['--rsh-command'],
  },
};

/** `tar cfI a.tar CMD` is `tar -c -f a.tar -I CMD`. */
function unbundle(args: readonly Word[], spec: ProgramSpec): Word[] {
  const [first, ...rest] = args;
  if (!first?.literal || !/^[A-Za-z0-9]+$/.test(first.text)) return [...args];
  const words: Word[] = [];
  let next = 0;
  for (const letter of first.text) {
    const flag = `-${letter}`;
    words.push(literalWord(flag));
    const value = rest[next];
    if (spec.valued?.includes(flag) && value) {
      words.push(value);
      next += 1;
    }
  }
  return [...words, ...rest.slice(next)];
}

function runProgram(spec: ProgramSpec, call: CommandCall): CommandFacts {
  const scan = scanPermuted(spec.bundledFirstWord ? unbundle(call.args, spec) : call.args, spec);
  for (const word of scan.runtimeWords) call.unresolved(`${call.name} has an argument only known at run time (${word.text}), which may be an option that runs a command`);
  for (const option of scan.options) {
    const label = `${call.name} ${option.flag}`;
    if (!option.value) continue;
    if (spec.code.includes(option.flag)) call.runCode(option.value, label);
    const prefix = spec.prefixedCode?.[option.flag];
    if (prefix === undefined) continue;
    if (!option.value.literal) call.unresolved(`${label} is only known at run time (${option.value.text}): it may run a command`);
    else if (option.value.text.startsWith(prefix)) call.runCode(literalWord(option.value.text.slice(prefix.length)), label);
  }
  for (const target of optionValues(scan, ...(spec.writes ?? []))) call.write(target, call.name);
  const facts = spec.effects?.(call, scan) ?? {};
  const file = optionValues(scan, ...(spec.opaque ?? []))[0];
  return file ? { opaque: `${call.name} reads ${file.text}, which can name the commands it runs` } : facts;
}

export const commandOptionHandlers = (): Array<[string, CommandHandler]> => [
  ...Object.entries(PROGRAMS).map(([name, spec]): [string, CommandHandler] => [name, (call) => runProgram(spec, call)]),
];
