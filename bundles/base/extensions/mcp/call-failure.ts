/**
 * What went wrong with one MCP request, decided from the SDK's errors, and the ToolResult error it
 * becomes. Only a request that certainly did not reach a live server ('undelivered': no
 * connection, an HTTP session the restarted server no longer knows, a refused connection) is
 * safe to send again after reconnecting; one that may have run ('closed', 'broken') is not
 * repeated, since MCP tools may have side effects.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpExtensionError, messageOf } from './mcp-error.ts';

export type FailureKind =
  /** The request never reached a live server: reconnect and send it again (once). */
  | 'undelivered'
  /** The connection closed while the request was open (the server process exited). */
  | 'closed'
  /** The transport failed in a way that leaves the outcome unknown. */
  | 'broken'
  /** The server rejected the credentials (HTTP 401/403): reconnecting will not help. */
  | 'unauthorized'
  | 'timeout'
  /** The server answered, but with a JSON-RPC error or a malformed result. */
  | 'protocol'
  /** The engine aborted the call (its own timeout, or shutdown). */
  | 'aborted';

const REFUSED_CODES = new Set(['ECONNREFUSED', 'ConnectionRefused', 'ENOTFOUND', 'EAI_AGAIN']);

export function classifyFailure(error: unknown, signal?: AbortSignal): FailureKind {
  if (signal?.aborted === true) return 'aborted';
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) return 'closed';
    if (error.code === ErrorCode.RequestTimeout) return 'timeout';
    return 'protocol';
  }
  if (error instanceof StreamableHTTPError) {
    // 404 = "Session not found": the server restarted and forgot our session (MCP transports spec).
    if (error.code === 404) return 'undelivered';
    if (error.code === 401 || error.code === 403) return 'unauthorized';
    return 'broken';
  }
  if (error instanceof Error) {
    if (error.message === 'Not connected') return 'undelivered';
    const code: unknown = Reflect.get(error, 'code');
    if (typeof code === 'string' && REFUSED_CODES.has(code)) return 'undelivered';
    if (error.name === 'ZodError') return 'protocol';
  }
  return 'broken';
}

/** The error's message, with the HTTP status when the streamable HTTP transport failed (its text alone may not say). */
export function causeMessage(error: unknown): string {
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) return `${error.message} (HTTP ${error.code})`;
  return messageOf(error);
}

export interface FailureContext {
  server: string;
  tool: string;
  timeoutMs: number;
  /** Last lines the server wrote to stderr (stdio), shown when it died. */
  stderrTail: readonly string[];
}

/** The error thrown to the executor for a failed call (never for 'aborted': that one is rethrown as is). */
export function callFailure(kind: Exclude<FailureKind, 'aborted'>, error: unknown, at: FailureContext): McpExtensionError {
  const subject = `MCP server '${at.server}'`;
  const stderr = at.stderrTail.length > 0 ? ` Its last stderr lines: ${at.stderrTail.join(' | ')}` : '';
  switch (kind) {
    case 'timeout':
      return new McpExtensionError('E_MCP_TIMEOUT', `${subject} did not answer the call to '${at.tool}' within ${at.timeoutMs} ms; the request was cancelled.`, {
        suggestion: 'Retry with a smaller request, or raise timeoutMs of the mcp extension for this server.',
        cause: error,
      });
    case 'protocol':
      return new McpExtensionError('E_MCP_PROTOCOL_ERROR', `${subject} rejected the call to '${at.tool}': ${causeMessage(error)}`, {
        suggestion: 'Check the arguments against the tool description; if they are right, the server may not support this call.',
        cause: error,
      });
    case 'unauthorized':
      return new McpExtensionError('E_MCP_UNAVAILABLE', `${subject} refused the connection: ${causeMessage(error)}`, {
        suggestion: `Check the credentials in servers.${at.server}.headers of the mcp extension config.`,
        cause: error,
      });
    case 'closed':
      return new McpExtensionError('E_MCP_UNAVAILABLE', `${subject} closed the connection during the call to '${at.tool}' (the server process exited?); it is restarted on the next call.${stderr}`, {
        suggestion: 'Call the tool again if its result is still needed; if the server keeps exiting on this input, try different arguments.',
        cause: error,
      });
    case 'undelivered':
    case 'broken':
      return new McpExtensionError('E_MCP_UNAVAILABLE', `${subject} is not reachable: ${causeMessage(error)}.${stderr}`, {
        suggestion: 'The server is retried on the next call; if it stays unavailable, check its command or URL in the mcp extension config.',
        cause: error,
      });
  }
}
