/**
 * The error ToolResults the executor produces itself (tool spec §9.2, §10.3). Each has a stable
 * code, a message that names the tool, and a suggestion the model can act on.
 */
import type { ToolCatalogItem, ToolError, ToolResult } from '../../shared/types/tools.ts';

export function errorResult(toolCallId: string, toolName: string, error: ToolError): ToolResult {
  return { toolCallId, toolName, status: 'error', error };
}

export function notInCatalogError(toolName: string, catalog: readonly ToolCatalogItem[]): ToolError {
  const offered = catalog.map((item) => item.name);
  const shown = offered.slice(0, 20).join(', ');
  return {
    code: 'E_TOOL_NOT_IN_CATALOG',
    name: 'ToolNotInCatalogError',
    category: 'tool',
    message: `Tool '${toolName}' is not available in the current Tool Catalog.`,
    suggestion:
      offered.length === 0
        ? 'No tools are available in this step; answer without calling a tool.'
        : `Call one of the tools offered in this step: ${shown}${offered.length > 20 ? ', …' : ''}. To make '${toolName}' available, add it to the Agent's spec.tools or register it from an extension.`,
  };
}

export function handlerNotFoundError(toolName: string): ToolError {
  return {
    code: 'E_TOOL_NOT_FOUND',
    name: 'ToolNotFoundError',
    category: 'tool',
    message: `Tool '${toolName}' is in the catalog but no handler is registered for it.`,
    suggestion: 'The extension that added this catalog item must also register its handler with api.tools.register().',
  };
}

export function invalidArgsError(toolName: string, issues: readonly string[], suggestion?: string): ToolError {
  const error: ToolError = {
    code: 'E_TOOL_INVALID_ARGS',
    name: 'ToolInputValidationError',
    category: 'tool',
    message: `Invalid arguments for '${toolName}': ${issues.join('; ')}`,
  };
  error.suggestion = suggestion ?? `Call '${toolName}' again with arguments that are one JSON object matching its parameters.`;
  return error;
}

export function timeoutError(toolName: string, timeoutMs: number, fromArg?: string): ToolError {
  return {
    code: 'E_TOOL_TIMEOUT',
    name: 'ToolTimeoutError',
    category: 'tool',
    message: `Tool '${toolName}' did not finish within ${timeoutMs} ms and was aborted.`,
    suggestion:
      `Do the work in smaller calls, or start it in the background and check on it later${fromArg ? `; for a job that needs longer, pass a larger ${fromArg}` : ''}. ` +
      "The operator can raise this limit with timeoutMs on the Tool's export or in the agent's tools[].config.",
  };
}

export function callLimitError(toolName: string, limit: number, callNumber: number): ToolError {
  return {
    code: 'E_TOOL_CALL_LIMIT',
    name: 'ToolCallLimitError',
    category: 'tool',
    message: `Tool '${toolName}' may be called at most ${limit} time(s) per turn; this was call ${callNumber}, so it did not run.`,
    suggestion: `Work with the results of the earlier ${toolName} calls of this turn, or ask the user to continue in a new message.`,
  };
}

export function resultInvalidError(toolName: string, issues: readonly string[]): ToolError {
  return {
    code: 'E_TOOL_RESULT_INVALID',
    name: 'ToolResultValidationError',
    category: 'tool',
    message: `Tool '${toolName}' returned a result that does not match its declared returns schema: ${issues.join('; ')}`,
    suggestion: 'This is a bug in the tool (or its returns schema); try another approach or report it to the operator.',
  };
}

export function toolDeniedError(toolName: string, message: string, suggestion: string): ToolError {
  return { code: 'E_TOOL_DENIED', name: 'ToolDeniedError', category: 'user', message: `${toolName} ${message}`, suggestion };
}

export function outputNotJsonError(toolName: string, reason: string): ToolError {
  return {
    code: 'E_TOOL_OUTPUT_INVALID',
    name: 'ToolOutputError',
    category: 'tool',
    message: `Tool '${toolName}' returned a value that is not JSON: ${reason}`,
    suggestion: 'This is a bug in the tool handler; it must return a JSON value.',
  };
}

export function middlewareError(toolName: string, message: string): ToolError {
  return {
    code: 'E_EXT_MIDDLEWARE',
    name: 'ToolCallMiddlewareError',
    category: 'tool',
    message: `A toolCall middleware failed while calling '${toolName}': ${message}`,
  };
}

export function interruptedError(toolName: string): ToolError {
  return {
    code: 'E_TOOL_INTERRUPTED',
    name: 'ToolInterruptedError',
    category: 'tool',
    message: `The call to '${toolName}' was interrupted before it produced a result.`,
    suggestion: 'Call the tool again if its result is still needed.',
  };
}

/** Cluster mode (issue 15): the instance's state could not be stored first, so the handler did not run. */
export function stateNotStoredError(toolName: string, reason: string): ToolError {
  return {
    code: 'E_TOOL_STATE_NOT_STORED',
    name: 'ToolStateNotStoredError',
    category: 'tool',
    message: `The call to '${toolName}' did not run: the cluster could not store this conversation first (${reason}).`,
    suggestion: 'Call the tool again; if it keeps failing, the cluster has lost its NATS connection.',
  };
}

/** Issue 10: the process died while the handler ran; it may or may not have had its effect. */
export function interruptedByCrashError(toolName: string): ToolError {
  return {
    code: 'E_TOOL_INTERRUPTED',
    name: 'ToolInterruptedError',
    category: 'tool',
    message: `The call to '${toolName}' was interrupted by a crash while it ran; it was not run again because '${toolName}' is not declared idempotent, so its effect may or may not have happened.`,
    suggestion: `Check whether the effect of '${toolName}' happened (read back what it changes) before calling it again.`,
  };
}

/** The agent is going away (drain deadline, engine close): the call is not started. */
export function shuttingDownError(toolName: string, reason: string): ToolError {
  return {
    code: 'E_TOOL_ABORTED',
    name: 'ToolAbortedError',
    category: 'tool',
    message: `Tool '${toolName}' was not run: ${reason}.`,
    suggestion: 'Finish the turn without further tool calls; the work can be resumed after the agent restarts.',
  };
}
