/**
 * An MCP tool's `inputSchema` as the catalog item's `parameters`: passed through as written, except
 * what the engine's ajv cannot take. It must be a JSON-Schema object, so `type: 'object'` is
 * added when missing; `$schema` is dropped (a 2020-12 meta-schema URI makes ajv refuse to
 * compile) and so is `$id` (ajv refuses a second schema with the same id, and two servers may
 * use one).
 */
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { JsonSchemaObject } from '../../../../shared/types/resources.ts';
import { isJsonObject, toJsonValue } from './json-value.ts';

export interface ParametersResult {
  parameters: JsonSchemaObject;
  /** Set when the schema had to be changed beyond dropping `$schema` / `$id`. */
  problem?: string;
}

export function toToolParameters(inputSchema: unknown): ParametersResult {
  const source = toJsonValue(inputSchema);
  if (!isJsonObject(source)) return { parameters: { type: 'object' }, problem: 'inputSchema is not an object; the tool accepts any arguments object' };
  const parameters: JsonSchemaObject = { type: 'object' };
  let problem: string | undefined;
  if (source.type !== undefined && source.type !== 'object') problem = `inputSchema.type is ${JSON.stringify(source.type)}; tool arguments are always an object, so it was replaced by "object"`;
  for (const [key, value] of Object.entries(source)) {
    if (key === 'type' || key === '$schema' || key === '$id') continue;
    if (key === 'properties') {
      if (isJsonObject(value)) parameters.properties = objectEntries(value);
    } else if (key === 'required') {
      if (Array.isArray(value)) parameters.required = value.filter((item): item is string => typeof item === 'string');
    } else if (key === 'additionalProperties') {
      if (typeof value === 'boolean' || isJsonObject(value)) parameters.additionalProperties = value;
    } else {
      parameters[key] = value;
    }
  }
  return problem === undefined ? { parameters } : { parameters, problem };
}

function objectEntries(value: JsonObject): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const [key, item] of Object.entries(value)) {
    // `true` is a valid JSON-Schema property schema; keep its meaning as `{}` (anything).
    if (isJsonObject(item)) out[key] = item;
    else if (item === true) out[key] = {};
    else if (item === false) out[key] = { not: {} };
  }
  return out;
}
