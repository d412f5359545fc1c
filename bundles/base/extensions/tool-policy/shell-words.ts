/**
 * One shell word as the program will receive it: quotes removed (`"rm"`, `r''m`, `\rm`, `$'\x72m'`
 * are all `rm`) when its value is known before the line runs; its source text when it is not
 * (an expansion or a substitution decides it at run time).
 */
import type { Node } from 'web-tree-sitter';

export interface Word {
  /** The value with quoting removed when `literal`; otherwise the word's source text. */
  text: string;
  /** The value is known from the text alone: no `$x`, `${…}`, `$(…)`, backticks or arithmetic. */
  literal: boolean;
  /** Unquoted glob or brace characters: the shell may turn it into other words (`/???/r?` → `/bin/rm`). */
  pattern: boolean;
}

export const literalWord = (text: string): Word => ({ text, literal: true, pattern: false });
export const runtimeWord = (text: string): Word => ({ text, literal: false, pattern: false });

const BACKSLASH_ESCAPE = /\\([\s\S])/g;
const DOUBLE_QUOTE_ESCAPE = /\\([$`"\\\n])/g;
/** Unquoted `*`, `?` or a `[…]` class; `{a,b}` / `{1..3}` brace expansion. */
const GLOB = /[*?]|\[.*\]|\{.*(,|\.\.).*\}/s;

const ANSI_SIMPLE: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
const ANSI_ESCAPE = /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs;

/** `$'…'` contents as bash decodes them (`$'\x72m'` is `rm`). */
export function decodeAnsiC(body: string): string {
  return body.replace(ANSI_ESCAPE, (whole, code: string) => {
    const kind = code[0] ?? '';
    if (kind === 'x' || kind === 'u' || kind === 'U') return String.fromCodePoint(Number.parseInt(code.slice(1), 16));
    if (/[0-7]/.test(kind)) return String.fromCodePoint(Number.parseInt(code, 8));
    if (kind === 'c') return String.fromCharCode((code.charCodeAt(1) & 0x1f) >>> 0);
    return ANSI_SIMPLE[kind] ?? whole;
  });
}

interface Piece {
  value: string;
  literal: boolean;
  /** Characters the shell would still expand as patterns (unquoted parts only). */
  unquoted: string;
}

function piece(node: Node): Piece {
  if (!node.isNamed) return { value: node.text, literal: true, unquoted: node.text };
  switch (node.type) {
    case 'word':
    case 'number': {
      if (node.namedChildCount > 0) return { value: node.text, literal: false, unquoted: '' };
      // Escaped glob characters (`\*`) are literal: test for patterns on the text with escapes blanked.
      return { value: node.text.replace(BACKSLASH_ESCAPE, (_m, c: string) => (c === '\n' ? '' : c)), literal: true, unquoted: node.text.replace(BACKSLASH_ESCAPE, '_') };
    }
    case 'raw_string':
      return { value: node.text.slice(1, -1), literal: true, unquoted: '' };
    case 'ansi_c_string':
      return { value: decodeAnsiC(node.text.slice(2, -1)), literal: true, unquoted: '' };
    case 'string': {
      const literal = node.namedChildren.every((child) => child?.type === 'string_content');
      return { value: literal ? node.text.slice(1, -1).replace(DOUBLE_QUOTE_ESCAPE, (_m, c: string) => (c === '\n' ? '' : c)) : node.text, literal, unquoted: '' };
    }
    case 'translated_string': {
      const inner = node.namedChildren[0];
      return inner ? piece(inner) : { value: '', literal: true, unquoted: '' };
    }
    case 'concatenation': {
      const parts = node.children.filter((child) => child !== null).map(piece);
      const literal = parts.every((p) => p.literal);
      return { value: literal ? parts.map((p) => p.value).join('') : node.text, literal, unquoted: parts.map((p) => p.unquoted).join('') };
    }
    default:
      // Expansions, substitutions, arithmetic: decided when the line runs.
      return { value: node.text, literal: false, unquoted: '' };
  }
}

/** The word a syntax node stands for. */
export function wordOf(node: Node): Word {
  const p = piece(node);
  return { text: p.value, literal: p.literal, pattern: p.literal && GLOB.test(p.unquoted) };
}
