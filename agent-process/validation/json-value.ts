/** Type guard for values that must be plain JSON (tool outputs, extension state, tool-call inputs). */
import type { JsonValue } from '../../shared/types/json.ts';

export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 200) return false; // cycles and absurd nesting are not JSON we can store
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value).every((item) => item === undefined || isJsonValue(item, depth + 1));
  }
  return false;
}
