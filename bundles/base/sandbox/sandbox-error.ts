/**
 * The sandbox could not be set up as configured. Thrown from a tool handler (the executor turns it
 * into an error ToolResult with this code and suggestion) or when an MCP server cannot be started.
 */
import type { ToolFailure } from '../../../shared/types/tools.ts';

// A registered symbol survives module duplication (two copies of this file loaded from two paths).
const MARKER = Symbol.for('goondan.base.sandbox-error');

export type SandboxErrorCode =
  /** `mode: required` and bubblewrap is missing or cannot create namespaces here. */
  'E_SANDBOX_UNAVAILABLE';

export class SandboxError extends Error implements ToolFailure {
  readonly code: SandboxErrorCode;
  readonly suggestion: string;
  readonly [MARKER] = true;

  constructor(code: SandboxErrorCode, message: string, suggestion: string) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.suggestion = suggestion;
  }

  static isInstance(value: unknown): value is SandboxError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}
