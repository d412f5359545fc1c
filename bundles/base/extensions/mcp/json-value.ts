/**
 * Narrowing of what MCP servers send (typed `unknown` by the SDK) to JSON values the engine can
 * store and show the model. A local copy: entry modules import only types from shared/
 * (ARCHITECTURE.md §1).
 */
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON copy of `value`: `undefined`, functions and symbols are dropped (as JSON.stringify does),
 * non-finite numbers become null, cycles end as null instead of recursing forever.
 */
export function toJsonValue(value: unknown, seen: Set<object> = new Set()): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return null;
  if (seen.has(value)) return null;
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => toJsonValue(item, seen));
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      out[key] = toJsonValue(item, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
