/**
 * Tool arguments made fit for a log line: values under secret-looking keys become `[redacted]`
 * (SPEC.md §1.1 "never log secrets"; a tool's `token` or `password` argument is exactly that),
 * long strings are cut, deep nesting is summarised.
 */
import type { JsonValue } from '../../../../shared/types/json.ts';

const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|auth|cookie|credential|private[-_]?key|signature/i;
const MAX_DEPTH = 6;

export function redactArgs(value: JsonValue, maxStringCharacters: number, depth = 0): JsonValue {
  if (typeof value === 'string') return value.length <= maxStringCharacters ? value : `${value.slice(0, maxStringCharacters)}… (${value.length} chars)`;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[array of ${value.length}]` : '[object]';
  if (Array.isArray(value)) return value.map((item) => redactArgs(item, maxStringCharacters, depth + 1));
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? '[redacted]' : redactArgs(item, maxStringCharacters, depth + 1);
  return out;
}
