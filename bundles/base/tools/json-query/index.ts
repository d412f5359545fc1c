/**
 * `json-query__*`: read JSON text passed as `data` — query a path, pick keys, count, flatten. Values
 * come back as JSON (not re-encoded strings), so the model sees structure.
 */
import type { JsonObject, JsonValue, ToolHandler } from '../../../../shared/types/index.ts';
import { isJsonObject } from '../tool-input.ts';
import { BaseToolError } from '../tool-error.ts';
import { argsReader } from '../tool-input.ts';
import { formatPath, lookup, parsePath } from './json-path.ts';
import { parseJsonData } from './parse-json-data.ts';

interface QueryArgs {
  data: string;
  path?: string;
}
interface PickArgs {
  data: string;
  keys: string[];
  path?: string;
}
interface FlattenArgs {
  data: string;
  depth?: number;
  path?: string;
}

const readArgs = {
  query: argsReader<QueryArgs>(import.meta.dir, 'query'),
  pick: argsReader<PickArgs>(import.meta.dir, 'pick'),
  count: argsReader<QueryArgs>(import.meta.dir, 'count'),
  flatten: argsReader<FlattenArgs>(import.meta.dir, 'flatten'),
};

/** The value at `path` (whole document without one); a missing path here is an error. */
function target(data: string, path: string | undefined, purpose: string): JsonValue {
  const segments = parsePath(path ?? '');
  const result = lookup(parseJsonData(data), segments);
  if (result.found) return result.value;
  throw new BaseToolError('E_JSON_PATH_NOT_FOUND', `Nothing at ${result.missingAt} to ${purpose}.`, {
    suggestion: `Use json-query__query to look around; there: ${JSON.stringify(result.available)}.`,
    details: { missingAt: result.missingAt, available: result.available },
  });
}

function typeError(path: string | undefined, expected: string, value: JsonValue): BaseToolError {
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return new BaseToolError('E_JSON_TYPE', `Expected ${expected} at ${path || 'the document root'} but found ${actual}.`, {
    suggestion: 'Point path at the right value (json-query__query shows what is there).',
  });
}

function pickKeys(value: JsonObject, keys: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const key of keys) {
    const item = value[key];
    if (Object.hasOwn(value, key) && item !== undefined) picked[key] = item;
  }
  return picked;
}

function flattenArray(items: readonly JsonValue[], depth: number): JsonValue[] {
  const out: JsonValue[] = [];
  for (const item of items) {
    if (Array.isArray(item) && depth > 0) out.push(...flattenArray(item, depth - 1));
    else out.push(item);
  }
  return out;
}

export const handlers: Record<string, ToolHandler> = {
  query: async (_ctx, input): Promise<JsonObject> => {
    const args = readArgs.query(input);
    const segments = parsePath(args.path ?? '');
    const result = lookup(parseJsonData(args.data), segments);
    const path = formatPath(segments);
    if (result.found) return { path, found: true, value: result.value };
    return { path, found: false, value: null, missingAt: result.missingAt, available: result.available };
  },

  pick: async (_ctx, input): Promise<JsonObject> => {
    const args = readArgs.pick(input);
    const value = target(args.data, args.path, 'pick from');
    if (isJsonObject(value)) return { value: pickKeys(value, args.keys) };
    if (!Array.isArray(value)) throw typeError(args.path, 'an object or an array of objects', value);
    const picked = value.map((item, index) => {
      if (!isJsonObject(item)) throw typeError(`${args.path ?? ''}[${index}]`, 'an object', item);
      return pickKeys(item, args.keys);
    });
    return { value: picked, count: picked.length };
  },

  count: async (_ctx, input): Promise<JsonObject> => {
    const args = readArgs.count(input);
    const value = target(args.data, args.path, 'count');
    if (Array.isArray(value)) return { type: 'array', count: value.length };
    if (isJsonObject(value)) return { type: 'object', count: Object.keys(value).length };
    throw typeError(args.path, 'an array or an object', value);
  },

  flatten: async (_ctx, input): Promise<JsonObject> => {
    const args = readArgs.flatten(input);
    const value = target(args.data, args.path, 'flatten');
    if (!Array.isArray(value)) throw typeError(args.path, 'an array', value);
    const flat = flattenArray(value, args.depth ?? 1);
    return { value: flat, length: flat.length };
  },
};
