/**
 * Validates a document against its Kind's JSON Schema (ajv, compiled once) and turns ajv errors
 * into problems: unknown fields point at their key with a "did you mean", missing fields at their
 * parent, wrong values at the value. Parts owned by dedicated checks (envelope, references) are
 * skipped here so each mistake is reported once, with the most precise code.
 */
import type { ErrorObject } from 'ajv';
import { isJsonObject } from '../types/json.ts';
import { schemaErrors } from '../schemas/validators.ts';
import type { NamedDocument } from './bundle-document.ts';
import { didYouMean } from './closest-names.ts';
import { formatPath, type PathSegment, pointerToSegments } from './json-path.ts';
import type { ProblemCode } from './problem-codes.ts';
import type { ProblemSink } from './problem-sink.ts';
import { isUnderRefPosition } from './ref-positions.ts';
import type { PositionTarget } from './source-position.ts';

interface MappedError {
  segments: PathSegment[];
  code: ProblemCode;
  message: string;
  suggestion?: string;
  target?: PositionTarget;
}

const ENVELOPE_ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Envelope fields have their own checks (check-envelope.ts). */
function ownedByEnvelope(segments: readonly PathSegment[], error: ErrorObject): boolean {
  const [first, second] = segments;
  if (first === 'apiVersion' || first === 'kind') return true;
  if (first === 'metadata' && second === 'name') return true;
  const missing: unknown = error.params.missingProperty;
  if (error.keyword === 'required' && segments.length === 0 && typeof missing === 'string') return ENVELOPE_ROOT_FIELDS.has(missing);
  if (error.keyword === 'required' && first === 'metadata' && segments.length === 1) return missing === 'name';
  return false;
}

function where(segments: readonly PathSegment[]): string {
  return segments.length === 0 ? 'the document' : formatPath(segments);
}

function description(error: ErrorObject): string | undefined {
  const text: unknown = error.parentSchema?.description;
  return typeof text === 'string' ? text : undefined;
}

function mapError(error: ErrorObject, segments: PathSegment[]): MappedError {
  const at = where(segments);
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(error.params.additionalProperty);
      const properties: unknown = error.parentSchema?.properties;
      const allowed = isJsonObject(properties) ? Object.keys(properties) : [];
      return {
        segments: [...segments, field],
        code: 'E_CONFIG_UNKNOWN_FIELD',
        message: `unknown field "${field}" in ${at}`,
        suggestion: didYouMean(field, allowed) ?? (allowed.length > 0 ? `allowed fields: ${allowed.join(', ')}` : 'remove the field'),
        target: 'key',
      };
    }
    case 'required': {
      const field = String(error.params.missingProperty);
      const result: MappedError = {
        segments: [...segments, field],
        code: 'E_CONFIG_SCHEMA_INVALID',
        message: `${at} is missing the required field "${field}"`,
        target: 'key',
      };
      const properties: unknown = error.parentSchema?.properties;
      const fieldSchema = isJsonObject(properties) ? properties[field] : undefined;
      const fieldDescription = isJsonObject(fieldSchema) ? fieldSchema.description : undefined;
      if (typeof fieldDescription === 'string') result.suggestion = `${field}: ${fieldDescription}`;
      return result;
    }
    case 'type': {
      const expected: unknown = error.params.type;
      const text = Array.isArray(expected) ? expected.join(' or ') : String(expected);
      const result: MappedError = { segments, code: 'E_CONFIG_SCHEMA_INVALID', message: `${at} must be ${/^[aeiou]/.test(text) ? 'an' : 'a'} ${text}` };
      const hint = description(error);
      if (hint) result.suggestion = hint;
      return result;
    }
    case 'enum': {
      const allowed: unknown = error.params.allowedValues;
      const values = Array.isArray(allowed) ? allowed.map(String) : [];
      const result: MappedError = { segments, code: 'E_CONFIG_SCHEMA_INVALID', message: `${at} must be one of: ${values.join(', ')}` };
      const hint = typeof error.data === 'string' ? didYouMean(error.data, values) : undefined;
      if (hint) result.suggestion = hint;
      return result;
    }
    case 'const':
      return { segments, code: 'E_CONFIG_SCHEMA_INVALID', message: `${at} must be ${JSON.stringify(error.params.allowedValue)}` };
    default: {
      const result: MappedError = { segments, code: 'E_CONFIG_SCHEMA_INVALID', message: `${at} ${error.message ?? 'is invalid'}` };
      const hint = description(error);
      if (hint) result.suggestion = hint;
      return result;
    }
  }
}

export function checkSchema(doc: NamedDocument, sink: ProblemSink): void {
  reportSchemaErrors(doc, schemaErrors(doc.kind, doc.value), [], sink, (segments, error) => ownedByEnvelope(segments, error) || isUnderRefPosition(doc.kind, segments));
}

/**
 * Reports ajv errors of a value that sits at `prefix` inside the document (a sub-schema checked on
 * its own, e.g. a tool ref's `config.sandbox`), each mistake once.
 */
export function reportSchemaErrors(
  doc: NamedDocument,
  errors: readonly ErrorObject[],
  prefix: readonly PathSegment[],
  sink: ProblemSink,
  skip: (segments: PathSegment[], error: ErrorObject) => boolean = () => false,
): void {
  const seen = new Set<string>();
  for (const error of errors) {
    const inner = pointerToSegments(error.instancePath);
    if (skip(inner, error)) continue;
    const mapped = mapError(error, [...prefix, ...inner]);
    const key = `${formatPath(mapped.segments)}\u0000${mapped.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const options: { suggestion?: string; target?: PositionTarget } = {};
    if (mapped.suggestion !== undefined) options.suggestion = mapped.suggestion;
    if (mapped.target !== undefined) options.target = mapped.target;
    sink.at(doc, mapped.segments, mapped.code, mapped.message, options);
  }
}
