/**
 * One tool call from the model to its ToolResult: counts it against its export's
 * `maxCallsPerTurn`, builds the `toolCall` middleware context (display summary, the tool's own
 * verdict), runs the chain (core = ToolExecutor.execute for this call), accepts the spec's
 * ToolResult shape from middleware, applies the tool's `errorMessageLimit` and reports
 * `tool.called` (with the summary) / `tool.completed` / `tool.failed`.
 */
import type { ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { JsonValue } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { Logger, ToolCall, ToolCatalogItem, ToolResult } from '../../shared/types/tools.ts';
import { runChain } from '../engine/chain-runner.ts';
import type { PipelineRegistry } from '../engine/pipeline-registry.ts';
import type { RuntimeEventLog } from '../observability/runtime-event-log.ts';
import { childSpan, elapsed, spanFields, type Span } from '../observability/trace-span.ts';
import { boundToolResult } from './bounded-tool-output.ts';
import { argsWithDefaults } from './args-validation.ts';
import { callDisplay } from './tool-call-display.ts';
import type { ToolCallExtras, ToolExecutor } from './tool-executor.ts';
import { callLimitError, errorResult, invalidArgsError } from './tool-errors.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { asToolResult } from './tool-result-shape.ts';
import { toolVerdictOnce } from './tool-verdict.ts';
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
  /** The agent's bound on a result's text (a Tool's own maxResultBytes wins). */
  maxToolResultBytes: number;
  pipeline: PipelineRegistry;
  executor: ToolExecutor;
  registry: ToolRegistry;
  events: RuntimeEventLog;
  /** The instance workspace, created if need be (the `workdir` of `evaluatePolicy`; oversized results are saved there whole). */
  workdir: () => string;
  logger: Logger;
}

export class ToolCallRunner {
  /** Calls per tool name in the running turn, in the order the model made them (maxCallsPerTurn). */
  private counts = { turnId: '', byTool: new Map<string, number>() };

  constructor(private readonly options: ToolCallRunnerOptions) {}

  async run(request: ToolCallRequest): Promise<ToolResult> {
    const { call } = request;
    const { agentName, instanceKey, events, registry } = this.options;
    // Counted before anything awaits: the calls of a step are started in the model's order.
    const callNumber = this.countCall(request.turnId, call.name);
    const span = childSpan(request.stepSpan);
    const tool = registry.get(call.name);
    const catalogItem = request.catalog.find((item) => item.name === call.name);
    const item = catalogItem ?? tool?.item;
    // The summary reads the arguments as the handler will get them (schema defaults filled in).
    const display = callDisplay(item, item?.summary === undefined ? call.args : argsWithDefaults(item.parameters, call.args).args, tool?.config ?? {});
    const common = { agentName, instanceKey, turnId: request.turnId, stepId: request.stepId, toolCallId: call.id, toolName: call.name };
    const called = () => events.emit({ type: 'tool.called', timestamp: new Date().toISOString(), ...spanFields(span), ...common, args: call.args, ...display });
    const extras: ToolCallExtras = { catalog: request.catalog, message: request.message, trace: { traceId: span.traceId, spanId: span.spanId } };
    const finished = (result: ToolResult, duration: number) => {
      const timestamp = new Date().toISOString();
      if (extras.handlerFailure !== undefined) {
        events.emit({ type: 'tool.failed', timestamp, ...spanFields(span), ...common, duration, error: extras.handlerFailure });
        return;
      }
      events.emit({ type: 'tool.completed', timestamp, ...spanFields(span), ...common, status: result.status, duration, ...(result.error ? { error: result.error } : {}) });
    };
    const answerAtOnce = (result: ToolResult) => {
      called();
      const limited = this.limitErrorMessage(result);
      finished(limited, elapsed(span));
      return limited;
    };

    if (request.argsError !== undefined) {
      // Unparseable arguments: no middleware or handler sees a made-up `{}` (seed 004 §8).
      return answerAtOnce(errorResult(call.id, call.name, invalidArgsError(call.name, [request.argsError])));
    }
    const limit = tool?.limits.maxCallsPerTurn;
    if (limit !== undefined && callNumber > limit) return answerAtOnce(errorResult(call.id, call.name, callLimitError(call.name, limit, callNumber)));

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
      display,
      ...(catalogItem ? { catalogItem } : {}),
      toolVerdict: toolVerdictOnce(tool, { agentName, instanceKey, toolName: call.name, workdir: this.options.workdir, args: () => ctx.args }, this.options.logger),
      next: () => Promise.reject(new Error('next() of the toolCall core context is not callable')),
    };
    return runChain(this.options.pipeline, 'toolCall', {
      ctx,
      core: (final) => this.options.executor.execute(final, extras),
      span,
      accept: (value) => asToolResult(value, call),
      failed: (error) => errorResult(call.id, call.name, error),
      // Both limits apply before the result is reported and stored (tool spec §2.4.2; issue 9).
      settle: (done) => this.limitOutput(this.limitErrorMessage(done)),
      started: called,
      finished,
    });
  }

  private limitOutput(result: ToolResult): ToolResult {
    const limit = this.options.registry.get(result.toolName)?.maxResultBytes ?? this.options.maxToolResultBytes;
    return boundToolResult(result, limit, this.options.workdir());
  }

  /** This call's number among the turn's calls of the same tool (1-based). */
  private countCall(turnId: string, toolName: string): number {
    if (this.counts.turnId !== turnId) this.counts = { turnId, byTool: new Map() };
    const n = (this.counts.byTool.get(toolName) ?? 0) + 1;
    this.counts.byTool.set(toolName, n);
    return n;
  }

  /** tool spec §2.4.2: every error message is cut to the tool's limit (extension tools: 1000). */
  private limitErrorMessage(result: ToolResult): ToolResult {
    if (result.status !== 'error' || result.error === undefined) return result;
    const limit = this.options.registry.get(result.toolName)?.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
    const message = truncateErrorMessage(result.error.message, limit);
    return message === result.error.message ? result : { ...result, error: { ...result.error, message } };
  }
}
