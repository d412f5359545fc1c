/**
 * Reading a command's leading options the way getopt does (`-n 5`, `-n5`, `-abn 5`, `--opt=v`,
 * `--opt v`, `--`), to find where its operands or the command it wraps begin. getopt_long also
 * takes an unambiguous prefix of a long option (`--adj 5` is `--adjustment 5`): a long option that
 * is not one the spec names is read as the valued option it begins, if any.
 */
import type { Word } from './shell-words.ts';

export interface OptionSpec {
  /** Options whose value is the next word unless glued (`-n`, `--adjustment`). */
  valued?: readonly string[];
  /** Long options without a value that begin a valued one (tar `--checkpoint`, `--checkpoint-action`): not read as its prefix. */
  flags?: readonly string[];
  /** Options whose value is optional and only glued (`-H[browser]`, `--html[=browser]`). */
  optionalValue?: readonly string[];
  /** `NAME=value` words may stand among the options (env, sudo). */
  assignments?: boolean;
}

export interface ScannedOption {
  /** `-n`, `--adjustment`; a cluster's letters come one by one (`-ab` → `-a`, `-b`). */
  flag: string;
  value?: Word;
}

export interface ScannedOptions {
  options: ScannedOption[];
  assignments: Word[];
  /** Index of the first operand in the scanned words. */
  rest: number;
  /** An option-position word only known at run time: it may be any option. */
  runtimeWord?: Word;
  /** The scan ended at `--`. */
  ended?: boolean;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The long option getopt_long reads `flag` as: itself when named, else the valued option it abbreviates. */
function longOption(flag: string, spec: OptionSpec, valued: ReadonlySet<string>): string {
  if (valued.has(flag) || spec.flags?.includes(flag) || spec.optionalValue?.includes(flag)) return flag;
  const known = [...valued, ...(spec.flags ?? []), ...(spec.optionalValue ?? [])];
  return known.find((name) => name.startsWith('--') && name.startsWith(flag) && flag.length > 2) ?? flag;
}

export function scanOptions(args: readonly Word[], spec: OptionSpec): ScannedOptions {
  const valued = new Set(spec.valued ?? []);
  const optional = new Set(spec.optionalValue ?? []);
  const options: ScannedOption[] = [];
  const assignments: Word[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal) return { options, assignments, rest: i, runtimeWord: word };
    const text = word.text;
    if (text === '--') return { options, assignments, rest: i + 1, ended: true };
    if (spec.assignments && ASSIGNMENT.test(text)) {
      assignments.push(word);
      continue;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const flag = longOption(eq < 0 ? text : text.slice(0, eq), spec, valued);
      if (eq >= 0) options.push({ flag, value: { text: text.slice(eq + 1), literal: true, pattern: false } });
      else if (valued.has(flag)) {
        const value = args[i + 1];
        options.push(value ? { flag, value } : { flag });
        i += 1;
      } else options.push({ flag });
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const flag = `-${text[j]}`;
      const glued = text.slice(j + 1);
      if (optional.has(flag)) {
        options.push(glued !== '' ? { flag, value: { text: glued, literal: true, pattern: false } } : { flag });
        break;
      }
      if (!valued.has(flag)) {
        options.push({ flag });
        continue;
      }
      const value = glued !== '' ? { text: glued, literal: true, pattern: false } : args[++i];
      options.push(value ? { flag, value } : { flag });
      break;
    }
  }
  return { options, assignments, rest: i };
}

/**
 * A word only known at run time that may expand to an option: anything but a word that starts
 * with a literal character other than `-` (`dir/$f`, `./"$f"`, `~/$f` cannot).
 */
export const mayBeOption = (word: Word): boolean => (word.literal ? word.text.startsWith('-') : !/^"?[A-Za-z0-9_./~+,:@%^=]/.test(word.text));

export interface PermutedOptions {
  options: ScannedOption[];
  /** The words that are not options nor their values, in order. */
  operands: Word[];
  /** Words only known at run time where an option may stand. */
  runtimeWords: Word[];
}

/** GNU getopt permutes: options may also follow operands, until `--` (`tar -cf x.tar dir --to-command=…`). */
export function scanPermuted(args: readonly Word[], spec: OptionSpec): PermutedOptions {
  const found: PermutedOptions = { options: [], operands: [], runtimeWords: [] };
  let i = 0;
  while (i < args.length) {
    const scan = scanOptions(args.slice(i), spec);
    found.options.push(...scan.options);
    i += scan.rest;
    if (scan.ended) {
      found.operands.push(...args.slice(i));
      break;
    }
    const word = args[i];
    if (!word) break;
    if (scan.runtimeWord && mayBeOption(word)) found.runtimeWords.push(word);
    else found.operands.push(word);
    i += 1;
  }
  return found;
}

export const hasOption = (scan: Pick<ScannedOptions, 'options'>, ...flags: string[]): boolean => scan.options.some((o) => flags.includes(o.flag));
export const optionValues = (scan: Pick<ScannedOptions, 'options'>, ...flags: string[]): Word[] =>
  scan.options.flatMap((o) => (flags.includes(o.flag) && o.value ? [o.value] : []));
