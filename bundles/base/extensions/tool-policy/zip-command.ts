/**
 * Info-ZIP `zip`, read as its own option parser reads it (zip 3.0 `fileio.c` get_option; the table is
 * `zip -so`): short options of one or two letters, the two-letter one winning (`-TT`, `-lf`, `-sc`,
 * `-tt` are not `-T -T`, `-l -f`…), a trailing `-` negating a negatable option (`-X-TT cmd` is `-X-`
 * then `-TT cmd`), a required value glued (`-bDIR`, `-b=DIR`) or the next word whatever it is,
 * `-i`/`-x` taking a list of values up to the next word starting with `-` or a lone `@`, long options
 * abbreviated to a unique prefix (`--out`, `--mov`, `--unzip`), options anywhere before `--` (zip
 * permutes), and the first other word the archive.
 *
 * What it does: `-TT CMD` / `--unzip-command CMD` tests the archive with CMD run by the shell (judged);
 * it writes the archive (or the `-O`/`--out` file instead), its temporary archive in `-b DIR`, and
 * its log `-lf PATH` (`PATH.log` when the name has no dot); `-m`/`--move` deletes the files it adds,
 * also those named on standard input with `-@` (judged as `rm -r` of them).
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { mayBeOption } from './option-scan.ts';
import { type Word, literalWord, runtimeWord } from './shell-words.ts';

type ZipValue = 'none' | 'required' | 'list';

interface ZipOption {
  /** The short name (`TT`), or the long one for options without (`version`): how the handler names it. */
  id: string;
  long?: string;
  value: ZipValue;
  negatable?: boolean;
}

/** `zip -so` of Zip 3.0, the options table its parser walks. */
const ZIP_OPTIONS: readonly ZipOption[] = [
  ...['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'].map((n): ZipOption => ({ id: n, long: n === '0' ? 'store' : `compress-${n}`, value: 'none' })),
  { id: 'A', long: 'adjust-sfx', value: 'none' }, { id: 'b', long: 'temp-path', value: 'required' }, { id: 'c', long: 'entry-comments', value: 'none' },
  { id: 'd', long: 'delete', value: 'none' }, { id: 'db', long: 'display-bytes', value: 'none', negatable: true },
  { id: 'dc', long: 'display-counts', value: 'none', negatable: true }, { id: 'dd', long: 'display-dots', value: 'none', negatable: true },
  { id: 'dg', long: 'display-globaldots', value: 'none', negatable: true }, { id: 'ds', long: 'dot-size', value: 'required' },
  { id: 'du', long: 'display-usize', value: 'none', negatable: true }, { id: 'dv', long: 'display-volume', value: 'none', negatable: true },
  { id: 'D', long: 'no-dir-entries', value: 'none' }, { id: 'DF', long: 'difference-archive', value: 'none' }, { id: 'e', long: 'encrypt', value: 'none' },
  { id: 'F', long: 'fix', value: 'none' }, { id: 'FF', long: 'fixfix', value: 'none' }, { id: 'FI', long: 'fifo', value: 'none', negatable: true },
  { id: 'FS', long: 'filesync', value: 'none' }, { id: 'f', long: 'freshen', value: 'none' }, { id: 'fd', long: 'force-descriptors', value: 'none' },
  { id: 'fz', long: 'force-zip64', value: 'none', negatable: true }, { id: 'g', long: 'grow', value: 'none' }, { id: 'h', long: 'help', value: 'none' },
  { id: 'H', value: 'none' }, { id: '?', value: 'none' }, { id: 'h2', long: 'more-help', value: 'none' }, { id: 'i', long: 'include', value: 'list' },
  { id: 'j', long: 'junk-paths', value: 'none' }, { id: 'J', long: 'junk-sfx', value: 'none' }, { id: 'k', long: 'DOS-names', value: 'none' },
  { id: 'l', long: 'to-crlf', value: 'none' }, { id: 'll', long: 'from-crlf', value: 'none' }, { id: 'lf', long: 'logfile-path', value: 'required' },
  { id: 'la', long: 'log-append', value: 'none', negatable: true }, { id: 'li', long: 'log-info', value: 'none', negatable: true },
  { id: 'L', long: 'license', value: 'none' }, { id: 'm', long: 'move', value: 'none' }, { id: 'mm', value: 'none' }, { id: 'MM', long: 'must-match', value: 'none' },
  { id: 'n', long: 'suffixes', value: 'required' }, { id: 'nw', long: 'no-wild', value: 'none' }, { id: 'o', long: 'latest-time', value: 'none' },
  { id: 'O', long: 'output-file', value: 'required' }, { id: 'p', long: 'paths', value: 'none' }, { id: 'P', long: 'password', value: 'required' },
  { id: 'q', long: 'quiet', value: 'none' }, { id: 'r', long: 'recurse-paths', value: 'none' }, { id: 'R', long: 'recurse-patterns', value: 'none' },
  { id: 'RE', long: 'regex', value: 'none' }, { id: 's', long: 'split-size', value: 'required' }, { id: 'sp', long: 'split-pause', value: 'none' },
  { id: 'sv', long: 'split-verbose', value: 'none' }, { id: 'sb', long: 'split-bell', value: 'none' }, { id: 'sc', long: 'show-command', value: 'none' },
  { id: 'sd', long: 'show-debug', value: 'none' }, { id: 'sf', long: 'show-files', value: 'none', negatable: true }, { id: 'so', long: 'show-options', value: 'none' },
  { id: 'su', long: 'show-unicode', value: 'none', negatable: true }, { id: 'sU', long: 'show-just-unicode', value: 'none', negatable: true },
  { id: 't', long: 'from-date', value: 'required' }, { id: 'tt', long: 'before-date', value: 'required' }, { id: 'T', long: 'test', value: 'none' },
  { id: 'TT', long: 'unzip-command', value: 'required' }, { id: 'u', long: 'update', value: 'none' }, { id: 'U', long: 'copy-entries', value: 'none' },
  { id: 'UN', long: 'unicode', value: 'required' }, { id: 'v', long: 'verbose', value: 'none' }, { id: 'version', long: 'version', value: 'none' },
  { id: 'ws', long: 'wild-stop-dirs', value: 'none' }, { id: 'x', long: 'exclude', value: 'list' }, { id: 'X', long: 'strip-extra', value: 'none', negatable: true },
  { id: 'y', long: 'symlinks', value: 'none' }, { id: 'z', long: 'archive-comment', value: 'none' }, { id: 'Z', long: 'compression-method', value: 'required' },
  { id: '@', long: 'names-stdin', value: 'none' },
];
const SHORT = ZIP_OPTIONS.filter((o) => o.id !== 'version');

interface ZipArguments {
  options: Array<{ id: string; value?: Word }>;
  /** The archive first, then the files (or patterns) to add. */
  operands: Word[];
  /** Words only known at run time where zip may read an option. */
  runtimeWords: Word[];
}

/** The option a short cluster names at `at`: the two-letter one when the next letter completes it. */
function shortAt(text: string, at: number): ZipOption | undefined {
  const [first, second] = [text[at], text[at + 1]];
  return SHORT.find((o) => o.id.length === 2 && o.id[0] === first && o.id[1] === second) ?? SHORT.find((o) => o.id === first);
}

/** An exact long name, else the only one it begins; zip stops with an error on an ambiguous or unknown one. */
function longNamed(name: string): ZipOption | undefined {
  const exact = ZIP_OPTIONS.find((o) => o.long === name);
  if (exact) return exact;
  const prefixed = ZIP_OPTIONS.filter((o) => o.long?.startsWith(name));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** The options of one word starting with `-`, and whether its last one takes the next word as its value. */
function readOptionWord(text: string): { found: Array<{ option: ZipOption; value?: string }>; wantsNext?: ZipOption } {
  if (text.startsWith('--')) {
    const eq = text.indexOf('=');
    const name = (eq < 0 ? text.slice(2) : text.slice(2, eq)).replace(/-$/, '');
    const option = longNamed(name);
    if (!option) return { found: [] };
    if (option.value === 'none') return { found: [{ option }] };
    return eq < 0 ? { found: [], wantsNext: option } : { found: [{ option, value: text.slice(eq + 1) }] };
  }
  const found: Array<{ option: ZipOption; value?: string }> = [];
  let at = 1;
  while (at < text.length) {
    const option = shortAt(text, at);
    if (!option) {
      at += 1;
      continue;
    }
    at += option.id.length;
    // A trailing `-` negates a negatable option; on a valued one that is not, it begins the value.
    if (text[at] === '-' && (option.negatable || option.value === 'none')) at += 1;
    if (option.value === 'none') {
      found.push({ option });
      continue;
    }
    if (at >= text.length) return { found, wantsNext: option };
    found.push({ option, value: text.slice(at).replace(/^=/, '') });
    break;
  }
  return { found };
}

export function readZipArguments(args: readonly Word[]): ZipArguments {
  const read: ZipArguments = { options: [], operands: [], runtimeWords: [] };
  let list = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (list && word.literal && word.text === '@') {
      list = false;
      continue;
    }
    if (!word.literal && mayBeOption(word)) {
      read.runtimeWords.push(word);
      continue;
    }
    const text = word.literal ? word.text : '';
    if (list && !text.startsWith('-')) continue;
    list = false;
    if (text === '--') {
      read.operands.push(...args.slice(i + 1));
      break;
    }
    if (!text.startsWith('-') || text === '-') {
      read.operands.push(word);
      continue;
    }
    const { found, wantsNext } = readOptionWord(text);
    for (const { option, value } of found) read.options.push(value === undefined ? { id: option.id } : { id: option.id, value: literalWord(value) });
    if (!wantsNext) continue;
    // The next word is the value, even one starting with `-`; a list goes on after it.
    const value = args[++i];
    read.options.push(value ? { id: wantsNext.id, value } : { id: wantsNext.id });
    list = wantsNext.value === 'list';
  }
  return read;
}

const has = (read: ZipArguments, id: string) => read.options.some((o) => o.id === id);
const values = (read: ZipArguments, id: string) => read.options.flatMap((o) => (o.id === id && o.value ? [o.value] : []));

/** zip names its log `PATH.log` when the file name has no dot. */
function logFile(path: Word): Word {
  if (!path.literal || /\.[^/]*$/.test(path.text)) return path;
  return literalWord(`${path.text}.log`);
}

function runZip(call: CommandCall): CommandFacts {
  const read = readZipArguments(call.args);
  for (const word of read.runtimeWords) call.unresolved(`zip has an argument only known at run time (${word.text}), which may be -TT CMD`);
  for (const command of values(read, 'TT')) call.runCode(command, 'zip -TT');
  for (const output of values(read, 'O')) call.write(output, 'zip -O (output archive)');
  for (const dir of values(read, 'b')) call.write(dir, 'zip -b (temporary archive)');
  for (const log of values(read, 'lf')) call.write(logFile(log), 'zip -lf (log file)');
  const [archive, ...files] = read.operands;
  // With -O the archive is only read: the output file is what changes.
  if (archive && archive.text !== '-' && !has(read, 'O')) call.write(archive, 'zip (archive)');
  if (has(read, 'm')) {
    const moved = has(read, '@') ? [...files, runtimeWord('<names read from standard input>')] : files;
    if (moved.length > 0) call.run([literalWord('rm'), literalWord('-r'), ...moved], 'zip -m');
  }
  return {};
}

export const zipHandlers = (): Array<[string, CommandHandler]> => [['zip', runZip]];
