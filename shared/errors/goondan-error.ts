/**
 * The base error of goondan (STYLE.md: AI SDK marker errors + Mastra error ids): a stable code, a
 * category, a suggestion and JSON details; recognised by a registered symbol instead of
 * `instanceof`, so an error rebuilt on the other side of a process boundary (`fromJSON`) or loaded
 * from a second copy of this module is still recognised.
 */
import type { JsonObject } from '../types/json.ts';
import { type ErrorCategory, type ErrorShape, errorShape, isErrorShape } from './error-shape.ts';

const MARKER = Symbol.for('goondan.error');

export interface GoondanErrorOptions {
  suggestion?: string;
  helpUrl?: string;
  details?: JsonObject;
  cause?: unknown;
}

export class GoondanError extends Error {
  readonly [MARKER] = true;
  readonly code: string;
  readonly category: ErrorCategory;
  // `declare`: an unset field stays absent instead of becoming an own `undefined` property.
  declare readonly suggestion?: string;
  declare readonly helpUrl?: string;
  declare readonly details?: JsonObject;

  constructor(code: string, category: ErrorCategory, message: string, options: GoondanErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GoondanError';
    this.code = code;
    this.category = category;
    if (options.suggestion !== undefined) this.suggestion = options.suggestion;
    if (options.helpUrl !== undefined) this.helpUrl = options.helpUrl;
    if (options.details !== undefined) this.details = options.details;
  }

  static isInstance(value: unknown): value is GoondanError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  /** Rebuilds an error received as JSON (reply event, HTTP body, IPC payload). */
  static fromJSON(shape: ErrorShape): GoondanError {
    return new GoondanError(shape.code, shape.category, shape.message, {
      ...(shape.suggestion !== undefined ? { suggestion: shape.suggestion } : {}),
      ...(shape.helpUrl !== undefined ? { helpUrl: shape.helpUrl } : {}),
      ...(shape.details !== undefined ? { details: shape.details } : {}),
    });
  }

  toJSON(): ErrorShape {
    return errorShape(this.code, this.category, this.message, {
      ...(this.suggestion !== undefined ? { suggestion: this.suggestion } : {}),
      ...(this.helpUrl !== undefined ? { helpUrl: this.helpUrl } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
    });
  }
}

const CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/;

/**
 * Any thrown value as an ErrorShape: a GoondanError or a received shape as it is; another Error
 * keeps a well-formed `code` / `suggestion` / `helpUrl` it carries (tool handlers' ToolFailure);
 * everything else gets `fallbackCode`.
 */
export function toErrorShape(error: unknown, fallbackCode: string, category: ErrorCategory): ErrorShape {
  if (GoondanError.isInstance(error)) return error.toJSON();
  if (isErrorShape(error)) return error;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : safeStringify(error);
  const shape = errorShape(fallbackCode, category, message);
  if (typeof error === 'object' && error !== null) {
    const code: unknown = Reflect.get(error, 'code');
    if (typeof code === 'string' && CODE_PATTERN.test(code)) shape.code = code;
    const suggestion: unknown = Reflect.get(error, 'suggestion');
    if (typeof suggestion === 'string') shape.suggestion = suggestion;
    const helpUrl: unknown = Reflect.get(error, 'helpUrl');
    if (typeof helpUrl === 'string') shape.helpUrl = helpUrl;
  }
  return shape;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
