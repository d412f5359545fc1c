/**
 * The one error class of the mcp extension. The tool executor turns a thrown error into a
 * `status:"error"` ToolResult and copies `code` and `suggestion` (tool spec §10.3), so handlers
 * throw this with a stable code; `register()` throws it for bad config (the engine reports
 * E_EXT_INIT with this message).
 */
import type { ToolFailure } from '../../../../shared/types/tools.ts';

export type McpErrorCode =
  /** The extension config is invalid (names the server and field). */
  | 'E_EXT_CONFIG'
  /** The MCP tool ran and answered `isError: true`. */
  | 'E_MCP_TOOL_ERROR'
  /** The server could not be reached, or the connection broke (transport failure). */
  | 'E_MCP_UNAVAILABLE'
  /** The server did not answer within `timeoutMs`. */
  | 'E_MCP_TIMEOUT'
  /** The server answered with a JSON-RPC error or a reply that is not a valid MCP result. */
  | 'E_MCP_PROTOCOL_ERROR';

// A registered symbol survives module duplication (two copies of this file loaded from two paths).
const MARKER = Symbol.for('goondan.base.mcp-error');

export class McpExtensionError extends Error implements ToolFailure {
  readonly code: McpErrorCode;
  readonly suggestion?: string;

  constructor(code: McpErrorCode, message: string, options: { suggestion?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'McpExtensionError';
    this.code = code;
    if (options.suggestion !== undefined) this.suggestion = options.suggestion;
    Object.defineProperty(this, MARKER, { value: true });
  }

  static isInstance(value: unknown): value is McpExtensionError {
    return typeof value === 'object' && value !== null && Reflect.get(value, MARKER) === true;
  }

  toJSON(): { code: McpErrorCode; message: string; suggestion?: string } {
    return this.suggestion === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, suggestion: this.suggestion };
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
