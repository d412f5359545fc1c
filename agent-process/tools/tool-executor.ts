/**
 * The core of the `toolCall` chain (ARCHITECTURE §4): catalog gate → ajv argument check → handler
 * with a timeout → ToolResult. Nothing here throws to the caller: every failure is an error
 * ToolResult the model sees (tool spec §2.4).
 */
import type { ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { ToolCatalogItem, ToolError, ToolResult } from '../../shared/types/tools.ts';
import { errorMessageOf } from '../engine/engine-error.ts';
import { isJsonValue } from '../validation/json-value.ts';
import { validateToolArgs } from './args-validation.ts';
import type { ToolContextFactory } from './tool-context.ts';
import { errorResult, handlerNotFoundError, invalidArgsError, notInCatalogError, outputNotJsonError, shuttingDownError, timeoutError } from './tool-errors.ts';
import type { ToolRegistry } from './tool-registry.ts';

export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60 * 1000;
const TIMED_OUT = Symbol('timed out');

/** What the core needs about a call besides its middleware context. */
export interface ToolCallExtras {
  catalog: readonly ToolCatalogItem[];
  message: Message;
  trace: { traceId: string; spanId: string };
  /** Set by the core when the handler threw or timed out (→ `tool.failed`). */
  handlerFailure?: string;
}

export interface ToolExecutorOptions {
  registry: ToolRegistry;
  contexts: ToolContextFactory;
  timeoutMs?: number;
  /** tool spec §2.3.3: calling registry tools outside the step's catalog needs an explicit policy. */
  allowRegistryDirectCalls?: boolean;
}

export class ToolExecutor {
  private readonly extras = new WeakMap<ToolCallMiddlewareContext, ToolCallExtras>();
  private readonly inFlight = new Set<AbortController>();
  /** Set by abortAll: later calls are not started (the agent is going away). */
  private abortReason: string | undefined;

  constructor(private readonly options: ToolExecutorOptions) {}

  /** Associates a call's context with what the core needs; call before running the chain. */
  attach(ctx: ToolCallMiddlewareContext, extras: ToolCallExtras): void {
    this.extras.set(ctx, extras);
  }

  /** Aborts every running handler and every later one (drain deadline, engine shutdown). */
  abortAll(reason: string): void {
    this.abortReason ??= reason;
    for (const controller of this.inFlight) controller.abort(new Error(reason));
  }

  readonly core = async (ctx: ToolCallMiddlewareContext): Promise<ToolResult> => {
    const extras = this.extras.get(ctx);
    if (!extras) throw new Error(`tool call ${ctx.toolCallId} reached the executor without its extras`);
    const { toolName, toolCallId } = ctx;

    const inCatalog = extras.catalog.some((item) => item.name === toolName);
    if (!inCatalog && this.options.allowRegistryDirectCalls !== true) {
      return errorResult(toolCallId, toolName, notInCatalogError(toolName, extras.catalog));
    }
    const tool = this.options.registry.get(toolName);
    if (!tool) return errorResult(toolCallId, toolName, handlerNotFoundError(toolName));

    // Invalid arguments never reach the handler (SPEC.md §2.7 step 3).
    const schema = ctx.catalogItem?.parameters ?? tool.item.parameters;
    const check = validateToolArgs(schema, ctx.args);
    if (!check.ok) return errorResult(toolCallId, toolName, invalidArgsError(toolName, check.issues, check.suggestion));

    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    if (this.abortReason !== undefined) return errorResult(toolCallId, toolName, shuttingDownError(toolName, this.abortReason));
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
    this.inFlight.add(controller);
    try {
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
      });
      const run = Promise.resolve().then(() => tool.handler(toolContext, ctx.args));
      const output = await Promise.race([run, timeout]);
      if (output === TIMED_OUT) {
        controller.abort(new Error(`tool call timed out after ${timeoutMs} ms`));
        run.catch(() => {}); // the late rejection of an aborted handler is expected
        extras.handlerFailure = `timed out after ${timeoutMs} ms`;
        return errorResult(toolCallId, toolName, timeoutError(toolName, timeoutMs));
      }
      const value = output === undefined ? null : output;
      if (!isJsonValue(value)) return errorResult(toolCallId, toolName, outputNotJsonError(toolName, 'functions, class instances, cycles and non-finite numbers cannot be stored or sent to the model'));
      return { toolCallId, toolName, status: 'ok', output: value };
    } catch (error) {
      extras.handlerFailure = errorMessageOf(error);
      return errorResult(toolCallId, toolName, handlerError(error));
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  };
}

const CODE_PATTERN = /^E?_?[A-Z][A-Z0-9_]*$/;

/** A thrown value as a ToolError: the handler's code / suggestion / helpUrl are kept (ToolFailure). */
function handlerError(error: unknown): ToolError {
  const result: ToolError = { code: 'E_TOOL', name: 'Error', message: errorMessageOf(error) };
  if (error instanceof Error) {
    result.name = error.name;
    const code: unknown = Reflect.get(error, 'code');
    if (typeof code === 'string' && CODE_PATTERN.test(code)) result.code = code;
    const suggestion: unknown = Reflect.get(error, 'suggestion');
    if (typeof suggestion === 'string') result.suggestion = suggestion;
    const helpUrl: unknown = Reflect.get(error, 'helpUrl');
    if (typeof helpUrl === 'string') result.helpUrl = helpUrl;
  }
  result.suggestion ??= 'Check the arguments against the tool description, or try another approach.';
  return result;
}
