/**
 * Programs with an option whose value is a command they run: `tar --to-command=CMD`, `-I CMD`,
 * `-F CMD`, `--checkpoint-action=exec=CMD`, `--rsh-command=CMD`; `split --filter=CMD`;
 * `rsync -e CMD` / `--rsh` / `--rsync-path`; `man -P CMD` / `-H CMD`; `cpio --rsh-command=CMD`;
 * `zip -TT CMD` / `--unzip-command`. The command is judged like the line. These programs read
 * options after their operands too (GNU getopt permutes) and abbreviated (`--to-com`), so every
 * word before `--` is read, and one only known at run time that may be such an option (`"$x"`)
 * cannot be judged.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { type OptionSpec, mayBeOption, optionValues, scanPermuted } from './option-scan.ts';
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
    flags: ['--checkpoint'],
    code: ['-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script', '--to-command', '--rsh-command', '--rmt-command'],
    prefixedCode: { '--checkpoint-action': 'exec=' },
    bundledFirstWord: true,
  },
  split: {
    valued: ['-a', '--suffix-length', '--additional-suffix', '-b', '--bytes', '-C', '--line-bytes', '-l', '--lines', '-n', '--number', '-t', '--separator', '--filter'],
    code: ['--filter'],
  },
  rsync: {
    valued: [
      '-e', '--rsh', '--rsync-path', '-f', '--filter', '-B', '--block-size', '-T', '--temp-dir', '-M', '--remote-option', '-@', '--modify-window', '--exclude',
      '--include', '--exclude-from', '--include-from', '--files-from', '--log-file', '--log-file-format', '--out-format', '--password-file', '--partial-dir',
      '--compare-dest', '--copy-dest', '--link-dest', '--backup-dir', '--suffix', '--chmod', '--chown', '--usermap', '--groupmap', '--timeout', '--contimeout',
      '--port', '--sockopts', '--bwlimit', '--max-size', '--min-size', '--max-delete', '--compress-choice', '--compress-level', '--checksum-choice', '--iconv',
      '--write-batch', '--only-write-batch', '--read-batch', '--protocol', '--outbuf', '--address', '--early-input', '--copy-as',
    ],
    code: ['-e', '--rsh', '--rsync-path'],
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
  const file = optionValues(scan, ...(spec.opaque ?? []))[0];
  return file ? { opaque: `${call.name} reads ${file.text}, which can name the commands it runs` } : {};
}

const UNZIP_COMMAND = '--unzip-command';

/** zip: `-TT CMD` (also `-TTCMD`, `-TT=CMD`) and `--unzip-command CMD` test the archive with CMD, run by the shell. */
function runZip(call: CommandCall): CommandFacts {
  const args = call.args;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal) {
      if (mayBeOption(word)) call.unresolved(`zip has an argument only known at run time (${word.text}), which may be -TT CMD`);
      continue;
    }
    if (word.text === '--') break;
    const eq = word.text.indexOf('=');
    const flag = eq < 0 ? word.text : word.text.slice(0, eq);
    const long = flag.length > 3 && flag.startsWith('--') && UNZIP_COMMAND.startsWith(flag);
    const short = /^-[^-]*TT(.*)$/s.exec(word.text);
    if (!long && !short) continue;
    const glued = long ? (eq < 0 ? '' : word.text.slice(eq + 1)) : (short?.[1] ?? '').replace(/^=/, '');
    const value = glued !== '' ? literalWord(glued) : args[++i];
    if (value) call.runCode(value, `zip ${long ? UNZIP_COMMAND : '-TT'}`);
  }
  return {};
}

export const commandOptionHandlers = (): Array<[string, CommandHandler]> => [
  ...Object.entries(PROGRAMS).map(([name, spec]): [string, CommandHandler] => [name, (call) => runProgram(spec, call)]),
  ['zip', runZip],
];
