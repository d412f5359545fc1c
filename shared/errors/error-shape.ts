/**
 * The one wire shape of an error on every boundary (ARCHITECTURE §7): tool results, turn results,
 * reply events, async replies, runtime events and HTTP bodies all carry `error: ErrorShape` — never
 * flattened `errorCode` / `errorMessage` fields, never reshaped on the way back.
 */
import type { JSONSchemaType } from 'ajv';
import { compiledValidator } from '../validation/compiled-validator.ts';
import type { ErrorCategory, ErrorShape } from './error-shape-type.ts';

export { ERROR_CATEGORIES, type ErrorCategory, type ErrorShape } from './error-shape-type.ts';

export const errorShapeSchema: JSONSchemaType<ErrorShape> = {
  $id: 'goondan://errors/error-shape',
  type: 'object',
  required: ['code', 'category', 'message'],
  properties: {
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
    category: { type: 'string', enum: ['user', 'system', 'provider', 'tool'] },
    message: { type: 'string' },
    name: { type: 'string', nullable: true },
    suggestion: { type: 'string', nullable: true },
    helpUrl: { type: 'string', nullable: true },
    details: { type: 'object', nullable: true, required: [] },
  },
  additionalProperties: false,
};

const validate = compiledValidator<ErrorShape>({ schema: errorShapeSchema, options: { strict: false } });

export function isErrorShape(value: unknown): value is ErrorShape {
  return validate(value);
}

/** Builds a shape without undefined fields (they would not survive JSON anyway). */
export function errorShape(code: string, category: ErrorCategory, message: string, extra: Partial<Pick<ErrorShape, 'suggestion' | 'helpUrl' | 'details'>> = {}): ErrorShape {
  const shape: ErrorShape = { code, category, message };
  if (extra.suggestion !== undefined) shape.suggestion = extra.suggestion;
  if (extra.helpUrl !== undefined) shape.helpUrl = extra.helpUrl;
  if (extra.details !== undefined) shape.details = extra.details;
  return shape;
}

/** `error.message` for anything thrown (non-Error values included). */
export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
