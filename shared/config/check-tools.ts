/**
 * Tool rules of tool spec §4.3 / §6.2: ≥1 export, unique export names, no "__" inside names,
 * export names [a-z0-9_-]+, `parameters` a valid JSON Schema; and the legacy Tool form, which is
 * rejected with the `exports` form written out for the user (ARCHITECTURE §5).
 */
import { stringify } from 'yaml';
import { isJsonObject, type JsonObject, type JsonValue } from '../types/json.ts';
import { jsonSchemaProblems } from '../schemas/validators.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import { didYouMean } from './closest-names.ts';
import { formatPath, type PathSegment, pointerToSegments } from './json-path.ts';
import type { ProblemSink } from './problem-sink.ts';

function getIn(value: JsonValue, segments: readonly PathSegment[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const segment of segments) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isJsonObject(current) && typeof segment === 'string') current = current[segment];
    else return undefined;
  }
  return current;
}

const EXPORT_NAME_PATTERN = /^[a-z0-9_-]+$/;
/** OpenAI-style providers accept function names of at most 64 characters. */
const MAX_TOOL_NAME_LENGTH = 64;

/** Legacy form: `spec.parameters` and/or `spec.runtime`, no `exports`, a default-export handler. */
export function isLegacyTool(spec: JsonObject | undefined): boolean {
  return spec !== undefined && spec.exports === undefined && (spec.parameters !== undefined || spec.runtime !== undefined);
}

function legacySuggestion(doc: NamedDocument, spec: JsonObject): string {
  const parameters = isJsonObject(spec.parameters) ? spec.parameters : { type: 'object', properties: {} };
  const description = typeof spec.description === 'string' ? spec.description : `TODO: describe what ${doc.name} does`;
  const rewritten: JsonObject = {
    spec: {
      entry: typeof spec.entry === 'string' ? spec.entry : `./tools/${doc.name}/index.ts`,
      exports: [{ name: 'run', description, parameters }],
    },
  };
  return [
    `use the exports form (the model then sees it as "${doc.name}__run"):`,
    stringify(rewritten).trimEnd(),
    'and in the entry module: export const handlers = { run: async (ctx, input) => { … } };',
  ].join('\n');
}

/** Returns false for a legacy Tool (its schema check is skipped: one clear problem instead of many). */
export function checkLegacyTool(doc: NamedDocument, sink: ProblemSink): boolean {
  const spec = specOf(doc);
  if (!spec || !isLegacyTool(spec)) return true;
  const field = spec.parameters !== undefined ? 'parameters' : 'runtime';
  sink.at(doc, ['spec', field], 'E_CONFIG_LEGACY_TOOL', `Tool "${doc.name}" uses the legacy form (spec.${field}, no exports); tools declare exports now (tool spec §4)`, {
    target: 'key',
    suggestion: legacySuggestion(doc, spec),
  });
  return false;
}

export function checkToolExports(doc: NamedDocument, sink: ProblemSink): void {
  const exports = specOf(doc)?.exports;
  if (!Array.isArray(exports)) return; // missing / wrong type: reported by the schema check
  if (exports.length === 0) {
    sink.at(doc, ['spec', 'exports'], 'E_CONFIG_NO_EXPORTS', `Tool "${doc.name}" has no exports; at least one is required (tool spec §4.3)`, {
      suggestion: 'exports:\n  - name: run\n    description: What it does.\n    parameters: { type: object, properties: {} }',
    });
    return;
  }
  const seen = new Map<string, number>();
  exports.forEach((item, i) => {
    if (!isJsonObject(item)) return;
    const { name, parameters } = item;
    if (typeof name === 'string') {
      if (name.includes('__')) {
        sink.at(doc, ['spec', 'exports', i, 'name'], 'E_CONFIG_TOOL_NAME_DOUBLE_UNDERSCORE', `export name "${name}" contains "__", which separates tool and export names (tool spec §4.3)`, {
          suggestion: `name: ${name.replace(/_{2,}/g, '_')}`,
        });
      } else if (!EXPORT_NAME_PATTERN.test(name)) {
        sink.at(doc, ['spec', 'exports', i, 'name'], 'E_CONFIG_INVALID_EXPORT_NAME', `export name "${name}" is invalid: use lowercase letters, digits, "_" and "-" (tool spec §6.2)`, {
          suggestion: `name: ${name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/_{2,}/g, '_') || 'run'}`,
        });
      } else if (doc.name.length + 2 + name.length > MAX_TOOL_NAME_LENGTH) {
        sink.at(doc, ['spec', 'exports', i, 'name'], 'E_CONFIG_TOOL_NAME_TOO_LONG', `"${doc.name}__${name}" is longer than ${MAX_TOOL_NAME_LENGTH} characters; some providers reject it`, {
          severity: 'warning',
        });
      }
      const earlier = seen.get(name);
      if (earlier !== undefined) {
        sink.at(doc, ['spec', 'exports', i, 'name'], 'E_CONFIG_DUPLICATE_EXPORT', `export "${name}" is already declared at spec.exports[${earlier}]`, {
          suggestion: 'give each export a unique name',
        });
      } else {
        seen.set(name, i);
      }
    }
    if (isJsonObject(parameters) && parameters.type === 'object') {
      for (const problem of jsonSchemaProblems(parameters)) {
        const segments = ['spec', 'exports', i, 'parameters', ...pointerToSegments(problem.pointer)];
        const got = getIn(parameters, pointerToSegments(problem.pointer));
        const hint = typeof got === 'string' && problem.allowed ? didYouMean(got, problem.allowed) : undefined;
        sink.at(doc, segments, 'E_CONFIG_INVALID_PARAMETERS_SCHEMA', `parameters of export "${String(name)}" is not a valid JSON Schema: ${formatPath(segments.slice(4)) || '(root)'} ${problem.message}`, {
          suggestion: hint ?? (problem.allowed ? `allowed: ${problem.allowed.join(', ')}` : 'see https://json-schema.org/understanding-json-schema/'),
        });
      }
    }
  });
}
