/**
 * One tool call from the model to its ToolResult: builds the `toolCall` middleware context, runs
 * the chain (core = ToolExecutor.execute for this call), applies the tool's `errorMessageLimit` and
 * reports `tool.called` / `tool.completed` / `tool.failed`.
 */
import type { ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { JsonValue } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { ToolCall, ToolCatalogItem, ToolResult } from '../../shared/types/tools.ts';
import { runChain } from '../engine/chain-runner.ts';
import type { PipelineRegistry } from '../engine/pipeline-registry.ts';
import type { RuntimeEventLog } from '../observability/runtime-event-log.ts';
import { childSpan, elapsed, spanFields, type Span } from '../observability/trace-span.ts';
import { boundToolResult } from './bounded-tool-output.ts';
import type { ToolCallExtras, ToolExecutor } from './tool-executor.ts';
import { errorResult, invalidArgsError } from './tool-errors.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { DEFAULT_ERROR_MESSAGE_LIMIT, truncateErrorMessage } from './truncate-error-message.ts';

export interface ToolCallRequest {
  call: ToolCall;
  /** Why the raw arguments could not be parsed; such a call is answered without running anything. */
  argsError?: string;
  catalog: readonly ToolCatalogItem[];
  /** The assistant message holding the call (ToolContext.message). */
  message: Message;
  turnId: string;
  stepId: string;
  stepIndex: number;
  stepSpan: Span;
}

export interface ToolCallRunnerOptions {
  agentName: string;
  instanceKey: string;
  /** The instance workspace, where oversized results are saved whole. */
  workdir: string;
  /** The agent's bound on a result's text (a Tool's own maxResultBytes wins). */
  maxToolResultBytes: number;
  pipeline: PipelineRegistry;
  executor: ToolExecutor;
  registry: ToolRegistry;
  events: RuntimeEventLog;
}

export class ToolCallRunner {
  constructor(private readonly options: ToolCallRunnerOptions) {}

  async run(request: ToolCallRequest): Promise<ToolResult> {
    const { call } = request;
    const { agentName, instanceKey, events } = this.options;
    const span = childSpan(request.stepSpan);
    const common = { agentName, instanceKey, turnId: request.turnId, stepId: request.stepId, toolCallId: call.id, toolName: call.name };
    const called = () => events.emit({ type: 'tool.called', timestamp: new Date().toISOString(), ...spanFields(span), ...common, args: call.args });
    const extras: ToolCallExtras = { catalog: request.catalog, message: request.message, trace: { traceId: span.traceId, spanId: span.spanId } };
    const finished = (result: ToolResult, duration: number) => {
      const timestamp = new Date().toISOString();
      if (extras.handlerFailure !== undefined) {
        events.emit({ type: 'tool.failed', timestamp, ...spanFields(span), ...common, duration, error: extras.handlerFailure });
        return;
      }
      events.emit({ type: 'tool.completed', timestamp, ...spanFields(span), ...common, status: result.status, duration, ...(result.error ? { error: result.error } : {}) });
    };

    if (request.argsError !== undefined) {
      // Unparseable arguments: no middleware or handler sees a made-up `{}` (seed 004 §8).
      called();
      const result = this.limitErrorMessage(errorResult(call.id, call.name, invalidArgsError(call.name, [request.argsError])));
      finished(result, elapsed(span));
      return result;
    }
    const catalogItem = request.catalog.find((item) => item.name === call.name);
    const metadata: Record<string, JsonValue> = {};
    const ctx: ToolCallMiddlewareContext = {
      agentName,
      instanceKey,
      turnId: request.turnId,
      traceId: span.traceId,
      stepIndex: request.stepIndex,
      toolName: call.name,
      toolCallId: call.id,
      args: call.args,
      metadata,
      ...(catalogItem ? { catalogItem } : {}),
      next: () => Promise.reject(new Error('next() of the toolCall core context is not callable')),
    };
    return runChain(this.options.pipeline, 'toolCall', {
      ctx,
      core: (final) => this.options.executor.execute(final, extras),
      span,
      isResult: isToolResult,
      failed: (error) => errorResult(call.id, call.name, error),
      // Both limits apply before the result is reported and stored (tool spec §2.4.2; issue 9).
      settle: (done) => this.limitOutput(this.limitErrorMessage(done)),
      started: called,
      finished,
    });
  }

  private limitOutput(result: ToolResult): ToolResult {
    const limit = this.options.registry.get(result.toolName)?.maxResultBytes ?? this.options.maxToolResultBytes;
    return boundToolResult(result, limit, this.options.workdir);
  }

  /** tool spec §2.4.2: every error message is cut to the tool's limit (extension tools: 1000). */
  private limitErrorMessage(result: ToolResult): ToolResult {
    if (result.status !== 'error' || result.error === undefined) return result;
    const limit = this.options.registry.get(result.toolName)?.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
    const message = truncateErrorMessage(result.error.message, limit);
    return message === result.error.message ? result : { ...result, error: { ...result.error, message } };
  }
}

function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    'status' in value &&
    (value.status === 'ok' || value.status === 'error' || value.status === 'pending') &&
    'toolCallId' in value &&
    typeof value.toolCallId === 'string'
  );
}
