/**
 * Reading a command's leading options the way getopt does (`-n 5`, `-n5`, `-abn 5`, `--opt=v`,
 * `--opt v`, `--`), to find where its operands or the command it wraps begin.
 */
import type { Word } from './shell-words.ts';

export interface OptionSpec {
  /** Options whose value is the next word unless glued (`-n`, `--adjustment`). */
  valued?: readonly string[];
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
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function scanOptions(args: readonly Word[], spec: OptionSpec): ScannedOptions {
  const valued = new Set(spec.valued ?? []);
  const options: ScannedOption[] = [];
  const assignments: Word[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal) return { options, assignments, rest: i, runtimeWord: word };
    const text = word.text;
    if (text === '--') {
      i += 1;
      break;
    }
    if (spec.assignments && ASSIGNMENT.test(text)) {
      assignments.push(word);
      continue;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const flag = eq < 0 ? text : text.slice(0, eq);
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
      if (!valued.has(flag)) {
        options.push({ flag });
        continue;
      }
      const glued = text.slice(j + 1);
      const value = glued !== '' ? { text: glued, literal: true, pattern: false } : args[++i];
      options.push(value ? { flag, value } : { flag });
      break;
    }
  }
  return { options, assignments, rest: i };
}

export const hasOption = (scan: ScannedOptions, ...flags: string[]): boolean => scan.options.some((o) => flags.includes(o.flag));
export const optionValues = (scan: ScannedOptions, ...flags: string[]): Word[] =>
  scan.options.flatMap((o) => (flags.includes(o.flag) && o.value ? [o.value] : []));
