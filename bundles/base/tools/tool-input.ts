/**
 * Narrowing of what a built-in handler receives. The engine already checks arguments against the
 * export's JSON Schema before the handler runs; handlers check again because they may be called
 * directly (tests, other tools), and they read `ctx.config` (which nobody else validates).
 * Argument schemas come from the `tool.yaml` beside the entry module — the one source of truth —
 * and their validators are generated once and cached (cached-ajv.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, JSONSchemaType } from 'ajv';
import { type CompiledAjv, ajvCacheBesideAjv, cachedAjvValidator } from '../cached-ajv.ts';
import type { JsonObject } from '../../../shared/types/index.ts';
import { BaseToolError } from './tool-error.ts';

/**
 * The object guard the tools share. A local copy: entry modules import only types from shared/
 * (ARCHITECTURE.md §1), so the one in shared/types/json.ts is not used here.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Options of every check here; validators are generated once and cached (cached-ajv.ts). */
const AJV_OPTIONS = { allErrors: true, strict: false } as const;

function validatorOf(schema: object): CompiledAjv {
  return cachedAjvValidator({ schema, options: AJV_OPTIONS }, ajvCacheBesideAjv());
}

const MAX_LISTED_ISSUES = 5;

/** `args.x: expected string but got number` (SPEC.md §5.2 wording), at most five of them. */
function describeIssues(errors: ErrorObject[] | null | undefined, root: string, value: unknown): string[] {
  return (errors ?? []).slice(0, MAX_LISTED_ISSUES).map((error) => {
    const where = root + error.instancePath.replace(/\//g, '.');
    if (error.keyword === 'additionalProperties') {
      return `${where}: unknown property "${String(error.params.additionalProperty)}"`;
    }
    if (error.keyword === 'required') return `${where}: missing required property "${String(error.params.missingProperty)}"`;
    if (error.keyword === 'type') return `${where}: expected ${String(error.params.type)} but got ${typeName(pointerValue(value, error.instancePath))}`;
    return `${where}: ${error.message ?? error.keyword}`;
  });
}

function pointerValue(value: unknown, pointer: string): unknown {
  let current = value;
  for (const segment of pointer.split('/').slice(1)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = Reflect.get(current, segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return current;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

interface ExportSchema {
  name: string;
  parameters: JsonObject;
}

function readExportSchemas(toolDir: string): ExportSchema[] {
  const file = join(toolDir, 'tool.yaml');
  // Bun's built-in parser: importing the `yaml` package here cost ~15 ms of every agent's start-up.
  const doc: unknown = Bun.YAML.parse(readFileSync(file, 'utf8'));
  const spec = isJsonObject(doc) ? doc.spec : undefined;
  const exports = isJsonObject(spec) ? spec.exports : undefined;
  if (!Array.isArray(exports)) throw new Error(`${file}: spec.exports is missing`);
  return exports.flatMap((item) =>
    isJsonObject(item) && typeof item.name === 'string' && isJsonObject(item.parameters)
      ? [{ name: item.name, parameters: item.parameters }]
      : [],
  );
}

/**
 * A reader for one export's arguments: returns them typed as `T` or throws `E_TOOL_INVALID_ARGS`
 * listing the problems. `T` must describe the export's `parameters` schema in `tool.yaml`.
 */
export function argsReader<T>(toolDir: string, exportName: string): (input: unknown) => T {
  let validate: CompiledAjv | undefined;
  let schema: JsonObject | undefined;
  const isArgs = (value: unknown): value is T => validate?.(value) === true;
  return (input) => {
    if (validate === undefined || schema === undefined) {
      const found = readExportSchemas(toolDir).find((item) => item.name === exportName);
      if (found === undefined) throw new Error(`${join(toolDir, 'tool.yaml')}: no export named "${exportName}"`);
      schema = found.parameters;
      validate = validatorOf(schema);
    }
    if (isArgs(input)) return input;
    const required = Array.isArray(schema.required) ? schema.required.join(', ') : '';
    const allowed = isJsonObject(schema.properties) ? Object.keys(schema.properties).join(', ') : '';
    throw new BaseToolError('E_TOOL_INVALID_ARGS', `Invalid arguments: ${describeIssues(validate.errors, 'args', input).join('; ')}`, {
      suggestion: `Required: ${required || '(none)'}. Allowed: ${allowed || '(none)'}.`,
    });
  };
}

/**
 * A reader for `ctx.config` against a schema kept in TypeScript (so the schema and `T` are checked
 * against each other by ajv's `JSONSchemaType`). Bad config is the operator's error: `E_TOOL_CONFIG`.
 */
export function configReader<T>(toolName: string, schema: JSONSchemaType<T>): (config: unknown) => T {
  let validate: CompiledAjv | undefined;
  const isConfig = (value: unknown): value is T => validate?.(value) === true;
  return (config) => {
    validate ??= validatorOf(schema);
    const value = config ?? {};
    if (isConfig(value)) return value;
    throw new BaseToolError('E_TOOL_CONFIG', `Invalid config for tool "${toolName}": ${describeIssues(validate.errors, 'config', value).join('; ')}`, {
      suggestion: `Fix spec.config of Tool/${toolName} or tools[].config of the agent.`,
    });
  };
}
