/**
 * `text-transform__*`: replace, slice, split, join, trim, case. Positions count characters (code
 * points), not UTF-16 units, so emoji and other astral characters are never cut in half.
 */
import type { JsonObject, ToolHandler } from '../../../../shared/types/index.ts';
import { compileLinearRegex } from '../linear-regex.ts';
import { BaseToolError } from '../tool-error.ts';
import { argsReader } from '../tool-input.ts';
import { changeCase, type CaseStyle } from './change-case.ts';

interface ReplaceArgs {
  text: string;
  search: string;
  replacement: string;
  regex?: boolean;
  all?: boolean;
  ignoreCase?: boolean;
}
interface SliceArgs {
  text: string;
  start?: number;
  end?: number;
}
interface SplitArgs {
  text: string;
  separator?: string;
  limit?: number;
}
interface JoinArgs {
  parts: string[];
  separator?: string;
}
interface TrimArgs {
  text: string;
  mode?: 'both' | 'start' | 'end';
}
interface CaseArgs {
  text: string;
  to: CaseStyle;
}

const readArgs = {
  replace: argsReader<ReplaceArgs>(import.meta.dir, 'replace'),
  slice: argsReader<SliceArgs>(import.meta.dir, 'slice'),
  split: argsReader<SplitArgs>(import.meta.dir, 'split'),
  join: argsReader<JoinArgs>(import.meta.dir, 'join'),
  trim: argsReader<TrimArgs>(import.meta.dir, 'trim'),
  case: argsReader<CaseArgs>(import.meta.dir, 'case'),
};

function replaceText(args: ReplaceArgs): JsonObject {
  const all = args.all !== false;
  if (args.search === '') {
    throw new BaseToolError('E_TEXT_EMPTY_SEARCH', 'search is empty, so there is nothing to replace.', { suggestion: 'Pass the text (or regex: true and a pattern) to find.' });
  }
  if (args.regex !== true) {
    // Literal: split/join, so "$&" and friends in the replacement stay literal.
    const parts = args.text.split(args.search);
    const count = parts.length - 1;
    if (all || count === 0) return { text: parts.join(args.replacement), replacements: count };
    const at = args.text.indexOf(args.search);
    return { text: args.text.slice(0, at) + args.replacement + args.text.slice(at + args.search.length), replacements: 1 };
  }
  const pattern = compileLinearRegex(args.search, { ignoreCase: args.ignoreCase === true, errorCode: 'E_TEXT_PATTERN', literalHint: ', or set regex: false' });
  const count = all ? Array.from(pattern.matchAll(args.text)).length : pattern.test(args.text) ? 1 : 0;
  // Regex mode: $1, $<name> and $& in the replacement refer to the match, as in String.replace.
  const matcher = pattern.matcher(args.text);
  return { text: all ? matcher.replaceAll(args.replacement) : matcher.replaceFirst(args.replacement), replacements: count };
}

function sliceText(args: SliceArgs): JsonObject {
  const chars = Array.from(args.text);
  const text = chars.slice(args.start ?? 0, args.end ?? chars.length).join('');
  return { text, length: Array.from(text).length };
}

function splitText(args: SplitArgs): JsonObject {
  const separator = args.separator ?? '\n';
  const pieces = separator === '' ? Array.from(args.text) : args.text.split(separator);
  // A limit keeps the remainder in the last part (like Python's maxsplit), nothing is dropped.
  const parts = args.limit !== undefined && pieces.length > args.limit ? [...pieces.slice(0, args.limit - 1), pieces.slice(args.limit - 1).join(separator)] : pieces;
  return { parts, count: parts.length };
}

export const handlers: Record<string, ToolHandler> = {
  replace: async (_ctx, input) => replaceText(readArgs.replace(input)),
  slice: async (_ctx, input) => sliceText(readArgs.slice(input)),
  split: async (_ctx, input) => splitText(readArgs.split(input)),
  join: async (_ctx, input) => {
    const args = readArgs.join(input);
    return { text: args.parts.join(args.separator ?? '\n') };
  },
  trim: async (_ctx, input) => {
    const args = readArgs.trim(input);
    const mode = args.mode ?? 'both';
    return { text: mode === 'start' ? args.text.trimStart() : mode === 'end' ? args.text.trimEnd() : args.text.trim() };
  },
  case: async (_ctx, input) => {
    const args = readArgs.case(input);
    return { text: changeCase(args.text, args.to) };
  },
};
