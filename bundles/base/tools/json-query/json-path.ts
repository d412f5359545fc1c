/**
 * Paths into a JSON value: `a.b[0].c`, `items[-1]` (from the end), `["key.with.dots"]`, an optional
 * leading `$`. Parse errors are `E_JSON_PATH` with the position; a missing step is not an error but
 * a `found: false` answer saying where the path stopped and what was there instead.
 */
import type { JsonObject, JsonValue } from '../../../../shared/types/index.ts';
import { isJsonObject } from '../tool-input.ts';
import { BaseToolError } from '../tool-error.ts';

export type PathSegment = string | number;

const IDENTIFIER = /^[^.[\]\s]+/;

export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let rest = path.trim().replace(/^\$/, '');
  let pos = path.length - rest.length;
  const fail = (what: string): never => {
    throw new BaseToolError('E_JSON_PATH', `Invalid path ${JSON.stringify(path)} at position ${pos}: ${what}.`, {
      suggestion: 'Use dots for keys and brackets for indexes, e.g. "items[0].name", or ["odd key"] for keys with dots or spaces.',
    });
  };
  let first = true;
  while (rest.length > 0) {
    if (rest.startsWith('[')) {
      const index = /^\[\s*(-?\d+)\s*\]/.exec(rest);
      const quoted = /^\[\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\]/.exec(rest);
      const match = index ?? quoted;
      if (match === null || match[1] === undefined) return fail('expected [number] or ["key"]');
      segments.push(index ? Number(match[1]) : unquote(match[1]));
      rest = rest.slice(match[0].length);
      pos += match[0].length;
    } else {
      if (rest.startsWith('.')) {
        rest = rest.slice(1);
        pos += 1;
      } else if (!first) return fail('expected "." or "["');
      const key = IDENTIFIER.exec(rest);
      if (key === null) return fail('expected a key');
      segments.push(key[0]);
      rest = rest.slice(key[0].length);
      pos += key[0].length;
    }
    first = false;
  }
  return segments;
}

function unquote(quoted: string): string {
  const body = quoted.slice(1, -1);
  return body.replace(/\\(.)/g, '$1');
}

export function formatPath(segments: readonly PathSegment[]): string {
  return segments.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : /^[A-Za-z_$][\w$]*$/.test(segment) ? (i === 0 ? segment : `.${segment}`) : `[${JSON.stringify(segment)}]`)).join('');
}

export type Lookup = { found: true; value: JsonValue } | { found: false; missingAt: string; available: JsonObject };

export function lookup(root: JsonValue, segments: readonly PathSegment[]): Lookup {
  let current: JsonValue = root;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i];
    let next: JsonValue | undefined;
    if (typeof segment === 'number' && Array.isArray(current)) next = current[segment < 0 ? current.length + segment : segment];
    else if (typeof segment === 'string' && isJsonObject(current) && Object.hasOwn(current, segment)) next = current[segment];
    if (next === undefined) return { found: false, missingAt: formatPath(segments.slice(0, i + 1)), available: describe(current) };
    current = next;
  }
  return { found: true, value: current };
}

/** What a model needs to fix its path: the keys of an object or the length of an array. */
function describe(value: JsonValue): JsonObject {
  if (Array.isArray(value)) return { type: 'array', length: value.length };
  if (isJsonObject(value)) return { type: 'object', keys: Object.keys(value).slice(0, 50) };
  return { type: value === null ? 'null' : typeof value };
}
