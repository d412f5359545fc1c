/**
 * The structured error the engine throws at start-up (tool / extension / model loading). It carries
 * a stable code, the file at fault and a suggestion, and survives a process boundary: it is
 * recognised by a marker field, not by `instanceof` (STYLE.md, AI SDK errors).
 */
import type { JsonObject } from '../../shared/types/json.ts';

const MARKER = 'goondan.engine-error';

export type EngineErrorCode =
  | 'E_TOOL_LOAD'
  | 'E_TOOL_HANDLERS_MISSING'
  | 'E_TOOL_HANDLER_MISSING'
  | 'E_TOOL_HANDLER_UNDECLARED'
  | 'E_TOOL_HANDLER_INVALID'
  | 'E_TOOL_INVALID_NAME'
  | 'E_TOOL_INVALID_SCHEMA'
  | 'E_EXT_LOAD'
  | 'E_EXT_INIT'
  | 'E_MODEL_CONFIG';

export interface EngineErrorDetails {
  code: EngineErrorCode;
  message: string;
  /** The entry module (or YAML resource) the problem is in. */
  file?: string;
  suggestion?: string;
  cause?: unknown;
}

export class EngineError extends Error {
  readonly marker = MARKER;
  readonly code: EngineErrorCode;
  readonly file?: string;
  readonly suggestion?: string;

  constructor(details: EngineErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'EngineError';
    this.code = details.code;
    if (details.file !== undefined) this.file = details.file;
    if (details.suggestion !== undefined) this.suggestion = details.suggestion;
  }

  static isInstance(value: unknown): value is EngineError {
    return typeof value === 'object' && value !== null && 'marker' in value && value.marker === MARKER;
  }

  toJSON(): JsonObject {
    const json: JsonObject = { code: this.code, message: this.message };
    if (this.file !== undefined) json.file = this.file;
    if (this.suggestion !== undefined) json.suggestion = this.suggestion;
    return json;
  }
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
