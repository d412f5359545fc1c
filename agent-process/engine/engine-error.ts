/**
 * The structured error the engine throws at start-up (tool / extension / model loading): a
 * GoondanError with a stable code, the file at fault (`details.file`) and a suggestion. It reaches
 * the orchestrator in `runtime.failed` and from there every waiting caller.
 */
import { GoondanError } from '../../shared/errors/index.ts';

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

export class EngineError extends GoondanError {
  declare readonly code: EngineErrorCode;
  declare readonly file?: string;

  constructor(details: EngineErrorDetails) {
    // The bundle's author can fix these: their category is `user`.
    super(details.code, 'user', details.message, {
      ...(details.suggestion !== undefined ? { suggestion: details.suggestion } : {}),
      ...(details.file !== undefined ? { details: { file: details.file } } : {}),
      ...(details.cause !== undefined ? { cause: details.cause } : {}),
    });
    this.name = 'EngineError';
    if (details.file !== undefined) this.file = details.file;
  }
}

export { errorMessageOf } from '../../shared/errors/index.ts';
