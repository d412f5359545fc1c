/**
 * Regular expressions written by a model run on RE2 (re2js, pure JavaScript): matching time is
 * linear in the input, so a pattern like `(a+)+$` cannot freeze an agent — a synchronous
 * backtracking `RegExp` could not be interrupted by the tool timeout. The syntax is JavaScript's
 * minus what needs backtracking: no backreferences and no lookaround.
 */
import { RE2JS } from 're2js';
import { BaseToolError, describeError } from './tool-error.ts';

export type LinearRegex = RE2JS;

/** One line for parameter descriptions and errors: what differs from JavaScript regex syntax. */
export const RE2_SYNTAX_NOTE =
  'RE2 syntax (linear time; like JavaScript, but no backreferences such as \\1 or \\k<name>, and no lookahead/lookbehind such as (?=…), (?!…), (?<=…), (?<!…))';

/**
 * Compiles a JavaScript-style pattern (named groups `(?<n>…)`, `\u0041`, `\cA` are translated) or
 * throws `errorCode` naming the pattern and the RE2 restrictions.
 */
export function compileLinearRegex(pattern: string, options: { ignoreCase: boolean; errorCode: string; literalHint: string }): LinearRegex {
  const fail = (reason: string) =>
    new BaseToolError(options.errorCode, `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. Patterns use ${RE2_SYNTAX_NOTE}.`, {
      suggestion: `Rewrite the pattern without backreferences or lookaround (e.g. match more and filter the result); escape literal ( ) [ ] . * + ? with a backslash${options.literalHint}.`,
    });
  // The translator would quietly turn `\k<name>` into the literal text "k<name>".
  if (hasNamedBackreference(pattern)) throw fail('named backreferences (\\k<name>) are not supported');
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw fail(describeError(error).replace(/^error parsing regexp: /, ''));
  }
}

/** UTF-16 index of the first match in `text`, or -1. */
export function firstMatchIndex(regex: LinearRegex, text: string): number {
  const matcher = regex.matcher(text);
  return matcher.find() ? matcher.start() : -1;
}

function hasNamedBackreference(pattern: string): boolean {
  for (let i = 0; i < pattern.length - 2; i++) {
    if (pattern[i] !== '\\') continue;
    if (pattern[i + 1] === 'k' && pattern[i + 2] === '<') return true;
    i++; // skip the escaped character (`\\k<` is a literal backslash followed by "k<")
  }
  return false;
}
