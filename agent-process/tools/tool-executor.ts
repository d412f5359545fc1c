/**
 * The core of the `toolCall` chain (ARCHITECTURE §4): catalog gate → ajv argument check (schema
 * defaults filled in) → the tool's own permission verdict → handler with its time limit →
 * ToolResult (`ok`, `pending` when the handler returned `ctx.pending(…)`, or `error`), checked
 * against the export's `returns` schema. Nothing here throws to the caller: every failure is an
 * error ToolResult the model sees (tool spec §2.4).
 */
import type { ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { Logger, ToolCatalogItem, ToolError, ToolResult } from '../../shared/types/tools.ts';
import { errorMessageOf, GoondanError, toErrorShape } from '../../shared/errors/index.ts';
import { isJsonValue } from '../validation/json-value.ts';
import { argsWithDefaults, validateToolResult } from './args-validation.ts';
import { callTimeLimit, DEFAULT_TOOL_TIMEOUT_MS } from './call-time-limit.ts';
import type { PendingMark, PendingResults } from './pending-results.ts';
import { runInToolCallScope, type ToolCallScope } from './tool-call-scope.ts';
import type { ToolCompletion } from './tool-completion.ts';
import type { ToolContextFactory } from './tool-context.ts';
import { errorResult, handlerNotFoundError, invalidArgsError, notInCatalogError, outputNotJsonError, resultInvalidError, shuttingDownError, stateNotStoredError, timeoutError } from './tool-errors.ts';
import type { ToolJournal } from './tool-journal.ts';
import type { ToolPermissionGate } from './tool-permission-gate.ts';
import type { RegisteredTool, ToolRegistry } from './tool-registry.ts';

export { DEFAULT_TOOL_TIMEOUT_MS };
const TIMED_OUT = Symbol('timed out');

/** What the core needs about a call besides its middleware context. */
export interface ToolCallExtras {
  catalog: readonly ToolCatalogItem[];
  message: Message;
  trace: { traceId: string; spanId: string };
  /** Set by the core when the handler threw or timed out (→ `tool.failed`). */
  handlerFailure?: ToolError;
}

export interface ToolExecutorOptions {
  registry: ToolRegistry;
  contexts: ToolContextFactory;
  pending: PendingResults;
  permissions: ToolPermissionGate;
  logger: Logger;
  /** Default time limit of a call whose export declares none (5 minutes). */
  timeoutMs?: number;
  /** tool spec §2.3.3: calling registry tools outside the step's catalog needs an explicit policy. */
  allowRegistryDirectCalls?: boolean;
  /** A result that does not match its export's `returns` is an error (GOONDAN_STRICT_RESULTS=1), else a warning. */
  strictResults?: boolean;
  /** Receives the completion of a pending call (tool spec §10.2), to deliver into the conversation. */
  onCompletion?: (completion: ToolCompletion) => void;
  /** Records each handler run before and after it (issue 10: effects at most once across crashes). */
  journal?: ToolJournal;
  /** After the journal's `started` record, before the handler acts (cluster mode replicates the state here). */
  beforeEffect?: () => Promise<void>;
}

export class ToolExecutor {
  private readonly inFlight = new Set<AbortController>();
  /** Set by abortAll: later calls are not started (the agent is going away). */
  private abortReason: string | undefined;
  /** The tools abortAll(reason, except) still lets through (a rehearsal's own no-op). */
  private abortExcept: ReadonlySet<string> = new Set();

  constructor(private readonly options: ToolExecutorOptions) {}

  /** Handlers running now (pending work included). */
  get runningCount(): number {
    return this.inFlight.size;
  }

  /**
   * Aborts every running handler and pending work, and refuses later calls (drain deadline, engine
   * shutdown). `except`: tool names still let through (a rehearsal's own no-op); a later call
   * without them refuses those as well.
   */
  abortAll(reason: string, except: ReadonlySet<string> = new Set()): void {
    this.abortReason ??= reason;
    this.abortExcept = except;
    for (const controller of this.inFlight) controller.abort(new Error(reason));
  }

  /** The core of the toolCall chain for one call (`extras` travel with the call). */
  async execute(ctx: ToolCallMiddlewareContext, extras: ToolCallExtras): Promise<ToolResult> {
    const { toolName, toolCallId } = ctx;

    const inCatalog = extras.catalog.some((item) => item.name === toolName);
    if (!inCatalog && this.options.allowRegistryDirectCalls !== true) {
      return errorResult(toolCallId, toolName, notInCatalogError(toolName, extras.catalog));
    }
    const tool = this.options.registry.get(toolName);
    if (!tool) return errorResult(toolCallId, toolName, handlerNotFoundError(toolName));

    // Invalid arguments never reach the handler (SPEC.md §2.7 step 3); defaults are filled in (seed 002).
    const { args, check } = argsWithDefaults(ctx.catalogItem?.parameters ?? tool.item.parameters, ctx.args);
    if (!check.ok) return errorResult(toolCallId, toolName, invalidArgsError(toolName, check.issues, check.suggestion));

    if (this.abortReason !== undefined && !this.abortExcept.has(toolName)) return errorResult(toolCallId, toolName, shuttingDownError(toolName, this.abortReason));
    const refusal = await this.options.permissions.check(ctx);
    if (refusal) return errorResult(toolCallId, toolName, refusal);

    // After the approval: a turn resumed while it waited asks again (and finds the same record).
    const journal = this.options.journal;
    journal?.started(extras.message.id, toolCallId, toolName, args, tool.item.idempotent === true);
    const unstored = await this.storeState();
    const result = unstored === undefined ? await this.runHandler(tool, ctx, extras, args) : errorResult(toolCallId, toolName, stateNotStoredError(toolName, unstored));
    journal?.finished(extras.message.id, toolCallId, result);
    return result;
  }

  /** Undefined once the state is stored (or nothing must be stored), else why it could not be. */
  private async storeState(): Promise<string | undefined> {
    try {
      await this.options.beforeEffect?.();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  private async runHandler(tool: RegisteredTool, ctx: ToolCallMiddlewareContext, extras: ToolCallExtras, args: JsonObject): Promise<ToolResult> {
    const { toolName, toolCallId } = ctx;
    const timeoutMs = callTimeLimit(tool.limits, args, this.options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const controller = new AbortController();
    const toolContext = this.options.contexts.create({
      agentName: ctx.agentName,
      instanceKey: ctx.instanceKey,
      turnId: ctx.turnId,
      toolCallId,
      toolName,
      message: extras.message,
      trace: extras.trace,
      config: tool.config,
      signal: controller.signal,
      ...(tool.sandbox ? { sandbox: tool.sandbox } : {}),
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pendingWork: Promise<unknown> | undefined;
    this.inFlight.add(controller);
    try {
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
      });
      // A rejection the handler created but never awaited ends this call, not the process.
      let strayRejection: (reason: unknown) => void = () => {};
      const stray = new Promise<never>((_resolve, reject) => {
        strayRejection = reject;
      });
      const scope: ToolCallScope = { toolCallId, toolName, done: false, fail: (reason) => strayRejection(strayError(reason)) };
      const run = runInToolCallScope(scope, async () => tool.handler(toolContext, args));
      const output = await Promise.race([run, timeout, stray]);
      if (output === TIMED_OUT) {
        controller.abort(new Error(`tool call timed out after ${timeoutMs} ms`));
        run.catch(() => {}); // the late rejection of an aborted handler is expected
        extras.handlerFailure = timeoutError(toolName, timeoutMs, tool.limits.timeoutFromArg);
        return errorResult(toolCallId, toolName, extras.handlerFailure);
      }
      const mark = this.options.pending.markOf(output);
      if (mark) {
        pendingWork = this.awaitCompletion(tool, toolCallId, mark);
        const result: ToolResult = { toolCallId, toolName, status: 'pending', handle: mark.handle };
        if (mark.output !== undefined) result.output = mark.output;
        return result;
      }
      const value = output === undefined ? null : output;
      if (!isJsonValue(value)) return errorResult(toolCallId, toolName, outputNotJsonError(toolName, 'functions, class instances, cycles and non-finite numbers cannot be stored or sent to the model'));
      const invalid = this.checkResult(tool, value);
      if (invalid) return errorResult(toolCallId, toolName, invalid);
      return { toolCallId, toolName, status: 'ok', output: value };
    } catch (error) {
      extras.handlerFailure = handlerError(error);
      return errorResult(toolCallId, toolName, extras.handlerFailure);
    } finally {
      clearTimeout(timer);
      // Pending work keeps its abort signal until it settles: a drain still cancels it.
      if (pendingWork) void pendingWork.finally(() => this.inFlight.delete(controller));
      else this.inFlight.delete(controller);
    }
  }

  /** The export's `returns` schema: an error under GOONDAN_STRICT_RESULTS=1, a warning otherwise. */
  private checkResult(tool: RegisteredTool, value: JsonValue): ToolError | undefined {
    const returns = tool.item.returns;
    if (returns === undefined) return undefined;
    const check = validateToolResult(returns, value);
    if (check.ok) return undefined;
    if (this.options.strictResults === true) return resultInvalidError(tool.item.name, check.issues);
    this.options.logger.warn({ code: 'E_TOOL_RESULT_INVALID', toolName: tool.item.name, issues: check.issues }, `tool ${tool.item.name} returned a result that does not match its returns schema`);
    return undefined;
  }

  /** Delivers the settled completion of a pending call; never rejects. */
  private async awaitCompletion(tool: RegisteredTool, toolCallId: string, mark: PendingMark): Promise<void> {
    if (!mark.completion) return;
    const base = { toolCallId, toolName: tool.item.name, handle: mark.handle };
    let completion: ToolCompletion;
    try {
      const value: unknown = await mark.completion;
      const output = value === undefined ? null : value;
      if (!isJsonValue(output)) {
        completion = { ...base, status: 'error', error: outputNotJsonError(tool.item.name, 'the result of its pending work is not JSON') };
      } else {
        const invalid = this.checkResult(tool, output);
        completion = invalid ? { ...base, status: 'error', error: invalid } : { ...base, status: 'ok', output };
      }
    } catch (error) {
      completion = { ...base, status: 'error', error: handlerError(error) };
    }
    this.options.logger.info({ toolCallId, toolName: tool.item.name, handle: mark.handle, status: completion.status }, 'pending tool work completed');
    this.options.onCompletion?.(completion);
  }
}

/** A promise the handler started but never awaited rejected while the call ran. */
function strayError(reason: unknown): GoondanError {
  return new GoondanError('E_TOOL', 'tool', `the tool left a promise unawaited and it rejected: ${errorMessageOf(reason)}`, {
    suggestion: 'The tool handler must await (or .catch) every promise it starts; retry or use another tool.',
  });
}

/** A thrown value as a ToolError: the handler's code / suggestion / helpUrl are kept (ToolFailure). */
function handlerError(error: unknown): ToolError {
  const shape = toErrorShape(error, 'E_TOOL', 'tool');
  // The handler's code and suggestion survive; whatever it threw, the category is the tool's.
  return {
    ...shape,
    category: 'tool',
    name: error instanceof Error ? error.name : 'Error',
    suggestion: shape.suggestion ?? 'Check the arguments against the tool description, or try another approach.',
  };
}
