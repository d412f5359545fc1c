/**
 * The one error class of the built-in tools. The tool executor turns any thrown error into a
 * `status:"error"` ToolResult and copies `code`, `suggestion` and `helpUrl` (tool spec §10.3), so a
 * handler only has to throw this with a stable code and, where someone can act, a suggestion.
 */
import type { JsonObject, ToolFailure } from '../../../shared/types/index.ts';

// A registered symbol survives module duplication (two copies of this file loaded from two paths).
const MARKER = Symbol.for('goondan.base.tool-error');

export interface BaseToolErrorOptions {
  suggestion?: string;
  helpUrl?: string;
  /** JSON-only facts for logs and tests (counts, sizes, paths). */
  details?: JsonObject;
  cause?: unknown;
}

export class BaseToolError extends Error implements ToolFailure {
  readonly code: string;
  // `declare`: an unset field stays absent instead of becoming an own `undefined` property.
  declare readonly suggestion?: string;
  declare readonly helpUrl?: string;
  declare readonly details?: JsonObject;
  readonly [MARKER] = true;

  constructor(code: string, message: string, options: BaseToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BaseToolError';
    this.code = code;
    if (options.suggestion !== undefined) this.suggestion = options.suggestion;
    if (options.helpUrl !== undefined) this.helpUrl = options.helpUrl;
    if (options.details !== undefined) this.details = options.details;
  }

  /** Marker check instead of `instanceof`, so a copy loaded from another path is still recognised. */
  static isInstance(value: unknown): value is BaseToolError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  toJSON(): JsonObject {
    const json: JsonObject = { name: this.name, code: this.code, message: this.message };
    if (this.suggestion !== undefined) json.suggestion = this.suggestion;
    if (this.helpUrl !== undefined) json.helpUrl = this.helpUrl;
    if (this.details !== undefined) json.details = this.details;
    return json;
  }
}

/** The call was cancelled through `ctx.signal` (engine timeout or agent drain). */
export function abortedError(what: string): BaseToolError {
  return new BaseToolError('E_TOOL_ABORTED', `${what} was cancelled: the tool call timed out or the agent is shutting down.`, {
    suggestion: 'If the work needs more time, split it into smaller steps.',
  });
}

/** Text of any thrown value, for wrapping system errors into a BaseToolError message. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of a Node system error (ENOENT, EACCES, …), if it has one. */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
