/**
 * The core of the `toolCall` chain (ARCHITECTURE §4): catalog gate → ajv argument check → handler
 * with a timeout → ToolResult. Nothing here throws to the caller: every failure is an error
 * ToolResult the model sees (tool spec §2.4).
 */
import type { ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { ToolCatalogItem, ToolError, ToolResult } from '../../shared/types/tools.ts';
import { errorMessageOf, GoondanError, toErrorShape } from '../../shared/errors/index.ts';
import { isJsonValue } from '../validation/json-value.ts';
import { validateToolArgs } from './args-validation.ts';
import { runInToolCallScope, type ToolCallScope } from './tool-call-scope.ts';
import type { ToolContextFactory } from './tool-context.ts';
import { errorResult, handlerNotFoundError, invalidArgsError, notInCatalogError, outputNotJsonError, timeoutError } from './tool-errors.ts';
import type { ToolJournal } from './tool-journal.ts';
import type { RegisteredTool, ToolRegistry } from './tool-registry.ts';

export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60 * 1000;
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
  timeoutMs?: number;
  /** tool spec §2.3.3: calling registry tools outside the step's catalog needs an explicit policy. */
  allowRegistryDirectCalls?: boolean;
  /** Records each handler run before and after it (issue 10: effects at most once across crashes). */
  journal?: ToolJournal;
}

export class ToolExecutor {
  private readonly inFlight = new Set<AbortController>();

  constructor(private readonly options: ToolExecutorOptions) {}

  /** Aborts every running handler (engine shutdown). */
  abortAll(reason: string): void {
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

    // Invalid arguments never reach the handler (SPEC.md §2.7 step 3).
    const schema = ctx.catalogItem?.parameters ?? tool.item.parameters;
    const check = validateToolArgs(schema, ctx.args);
    if (!check.ok) return errorResult(toolCallId, toolName, invalidArgsError(toolName, check.issues, check.suggestion));

    const journal = this.options.journal;
    journal?.started(extras.message.id, toolCallId, toolName, ctx.args);
    const result = await this.runHandler(tool, ctx, extras);
    journal?.finished(extras.message.id, toolCallId, result);
    return result;
  }

  private async runHandler(tool: RegisteredTool, ctx: ToolCallMiddlewareContext, extras: ToolCallExtras): Promise<ToolResult> {
    const { toolName, toolCallId } = ctx;
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
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
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
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
      const run = runInToolCallScope(scope, async () => tool.handler(toolContext, ctx.args));
      const output = await Promise.race([run, timeout, stray]);
      if (output === TIMED_OUT) {
        controller.abort(new Error(`tool call timed out after ${timeoutMs} ms`));
        run.catch(() => {}); // the late rejection of an aborted handler is expected
        extras.handlerFailure = timeoutError(toolName, timeoutMs);
        return errorResult(toolCallId, toolName, extras.handlerFailure);
      }
      const value = output === undefined ? null : output;
      if (!isJsonValue(value)) return errorResult(toolCallId, toolName, outputNotJsonError(toolName, 'functions, class instances, cycles and non-finite numbers cannot be stored or sent to the model'));
      return { toolCallId, toolName, status: 'ok', output: value };
    } catch (error) {
      extras.handlerFailure = handlerError(error);
      return errorResult(toolCallId, toolName, extras.handlerFailure);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
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
