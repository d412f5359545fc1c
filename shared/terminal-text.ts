/**
 * Text from an agent, a model or the outside made safe to show on a terminal: every control
 * character is written as a visible escape (`\x1b`, `\r`, `\u{202e}`), so a tool argument cannot
 * move the cursor, erase lines or recolour the screen — e.g. erase a `curl … | sh` and draw a fake
 * "Run git status" approval prompt in its place. Long text is cut in the middle, never silently
 * at the end: the approver sees where it was cut and how it ends.
 */

/**
 * C0 controls, DEL, C1 controls (a UTF-8 terminal may act on U+009B as CSI), and the Unicode
 * line separators and bidirectional overrides that reorder or break what is displayed.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, less line feed and tab: the characters a block of several lines keeps. */
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\x1b' };

function visible(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** One line: every control character, line feeds included, shown as an escape. */
export function terminalLine(text: string): string {
  return text.replace(CONTROLS, visible);
}

/** Several lines: line feeds and tabs kept (CRLF read as a line feed), every other control shown as an escape. */
export function terminalLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROLS_BUT_LINES, visible);
}

/** JSON text whose strings may hold C1 or bidi controls (JSON.stringify escapes only C0): those as `\uXXXX`, still valid JSON. */
export function terminalJson(json: string): string {
  return json.replace(CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * At most `max` characters: when longer, its beginning and its end with the cut said between them
 * (`git status … [312 characters cut] … | sh`), so a dangerous tail is not hidden by a limit.
 */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  // Sized for the largest possible count, so the result never exceeds `max`.
  const marker = (cut: number) => ` … [${cut} characters cut] … `;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil((room * 2) / 3);
  const tail = room - head;
  return `${text.slice(0, head)}${marker(text.length - head - tail)}${tail > 0 ? text.slice(-tail) : ''}`;
}

/** At most `max` lines (plus one saying how many were left out): the first ones and the last ones. */
export function clipLines(lines: readonly string[], max: number): string[] {
  if (lines.length <= max) return [...lines];
  const tail = Math.floor(max / 4);
  const head = max - tail;
  return [...lines.slice(0, head), `… ${lines.length - head - tail} more line(s) not shown …`, ...(tail > 0 ? lines.slice(-tail) : [])];
}
