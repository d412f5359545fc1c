/**
 * The top-level keys of an object literal in JavaScript source (Bun.Transpiler output: no types,
 * no comments), read by a small tokenizer that skips strings, templates, regular expressions and
 * nested brackets. Enough to compare `export const handlers = { … }` with a Tool's exports without
 * running the module; not a JavaScript parser.
 */

export interface ObjectLiteralKeys {
  keys: string[];
  /** False when a spread (`...other`) or a computed key (`[name]`) hides keys from a static reading. */
  complete: boolean;
}

/** Keywords after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);
const REGEX_AFTER_PUNCTUATION = new Set([...'(,=:[!&|?{};+-*%<>~^']);
const CLOSING: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };
const KEY_MODIFIERS = new Set(['async', 'get', 'set', 'static']);

const isIdentifierChar = (c: string | undefined): boolean => c !== undefined && /[\w$\u0080-\uffff]/.test(c);

/** Index just after a quoted string starting at `start` (its quote character). */
function skipString(js: string, start: number): number {
  const quote = js[start];
  let i = start + 1;
  while (i < js.length && js[i] !== quote) i += js[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** Index just after a regular expression literal starting at `start` (its `/`). */
function skipRegex(js: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < js.length) {
    const c = js[i];
    if (c === '\\') i += 2;
    else if (c === '\n') return i; // not a regex after all; stop at the line end
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      i += 1;
    }
  }
  i += 1;
  while (isIdentifierChar(js[i])) i += 1; // flags
  return i;
}

/** Index just after a template literal starting at `start` (its backtick), `${…}` included. */
function skipTemplate(js: string, start: number): number {
  let i = start + 1;
  while (i < js.length) {
    const c = js[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i + 1;
    else if (c === '$' && js[i + 1] === '{') i = skipBalanced(js, i + 1);
    else i += 1;
  }
  return i;
}

/**
 * Index just after the token at `i` when it is one whose inside must not be read as code (a
 * string, template, comment, regular expression or bracketed group); else `i + 1`.
 */
function skipToken(js: string, i: number): number {
  const c = js[i];
  if (c === '"' || c === "'") return skipString(js, i);
  if (c === '`') return skipTemplate(js, i);
  if (c === '(' || c === '[' || c === '{') return skipBalanced(js, i);
  if (c === '/') {
    const next = js[i + 1];
    if (next === '/') return js.indexOf('\n', i) === -1 ? js.length : js.indexOf('\n', i);
    if (next === '*') return js.indexOf('*/', i + 2) === -1 ? js.length : js.indexOf('*/', i + 2) + 2;
    if (isRegexStart(js, i)) return skipRegex(js, i);
  }
  return i + 1;
}

/** Index just after the bracket that closes the one at `start`. */
function skipBalanced(js: string, start: number): number {
  const close = CLOSING[js[start] ?? ''];
  let i = start + 1;
  while (i < js.length) {
    if (js[i] === close) return i + 1;
    i = skipToken(js, i);
  }
  return i;
}

function wordEnd(js: string, start: number): number {
  let i = start;
  while (isIdentifierChar(js[i])) i += 1;
  return i;
}

function skipSpace(js: string, start: number): number {
  let i = start;
  while (i < js.length && /\s/.test(js[i] ?? '')) i += 1;
  return i;
}

/** One key token at `start`: its name (undefined for a spread or computed key) and where it ends. */
function readKey(js: string, start: number): { name?: string; end: number } {
  const c = js[start];
  if (c === '"' || c === "'") {
    const end = skipString(js, start);
    const raw = js.slice(start + 1, end - 1);
    return { name: raw.replace(/\\(.)/g, '$1'), end };
  }
  if (c === '[' || js.startsWith('...', start)) return { end: start };
  if (c === '*') return readKey(js, skipSpace(js, start + 1)); // generator method
  const end = wordEnd(js, start);
  const word = js.slice(start, end);
  const after = skipSpace(js, end);
  const next = js[after];
  // `async run() {}`, `get size() {}`: the modifier is followed by the real key.
  if (KEY_MODIFIERS.has(word) && next !== undefined && next !== ':' && next !== '(' && next !== ',' && next !== '}') return readKey(js, after);
  return { name: word, end };
}

/** Keys of the object literal whose `{` is at `openBrace`; undefined if `js` has no `{` there. */
export function objectLiteralKeys(js: string, openBrace: number): ObjectLiteralKeys | undefined {
  if (js[openBrace] !== '{') return undefined;
  const close = skipBalanced(js, openBrace);
  const keys: string[] = [];
  let complete = true;
  let i = skipSpace(js, openBrace + 1);
  while (i < close - 1) {
    const key = readKey(js, i);
    if (key.name === undefined || key.name === '') complete = false;
    else keys.push(key.name);
    // Skip the value (or the method body) up to the comma that ends this property.
    let j = key.end;
    while (j < close - 1 && js[j] !== ',') j = skipToken(js, j);
    i = skipSpace(js, j + 1);
  }
  return { keys, complete };
}

/** Whether the `/` at `index` opens a regular expression (judged by the token before it). */
function isRegexStart(js: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && /\s/.test(js[i] ?? '')) i -= 1;
  const c = js[i];
  if (c === undefined || REGEX_AFTER_PUNCTUATION.has(c)) return true;
  if (!isIdentifierChar(c)) return false;
  let start = i;
  while (start > 0 && isIdentifierChar(js[start - 1])) start -= 1;
  return REGEX_AFTER_WORDS.has(js.slice(start, i + 1));
}
