/**
 * The ToolContext handed to a handler (tool spec §7.3, §2.5): identity, the assistant message that
 * holds the call, the instance workspace as workdir (created on first use), a Console-compatible
 * logger carrying the trace fields, the tool's config, the inter-agent runtime, the abort signal,
 * `pending()` for long-running work and the sandbox its processes must run in (the agent's, with
 * the tool's own `config.sandbox` over it). Nothing else — no bundle handle, no OAuth (tool spec §2.5.3).
 */
import { mkdirSync } from 'node:fs';
import type { JsonObject } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { ProcessSandbox, SandboxPlan } from '../../shared/types/sandbox.ts';
import type { AgentToolRuntime, ToolContext } from '../../shared/types/tools.ts';
import type { PendingResults } from './pending-results.ts';
import { consoleCompatibleLogger, type PinoLike } from './tool-logger.ts';

export interface ToolContextInput {
  agentName: string;
  instanceKey: string;
  turnId: string;
  toolCallId: string;
  toolName: string;
  message: Message;
  trace: { traceId: string; spanId: string };
  config: JsonObject;
  signal: AbortSignal;
  /** The tool's resolved sandbox (ToolPlan.sandbox); extension tools use the agent's. */
  sandbox?: SandboxPlan;
}

export interface ToolContextFactoryOptions {
  workdir: string;
  /** Parent logger; each call gets a child with trace fields. */
  logger: { child(bindings: Record<string, unknown>): PinoLike };
  runtime?: AgentToolRuntime;
  /** The agent's sandbox (its `workdir` is this factory's). */
  sandbox: ProcessSandbox;
  /** Where `ctx.pending()` marks its results (shared with the executor). */
  pending: PendingResults;
}

export class ToolContextFactory {
  private workdirReady = false;

  constructor(private readonly options: ToolContextFactoryOptions) {}

  /** The instance workspace, created on first use (handlers and `evaluatePolicy` may resolve paths in it). */
  workdir(): string {
    if (!this.workdirReady) {
      mkdirSync(this.options.workdir, { recursive: true });
      this.workdirReady = true;
    }
    return this.options.workdir;
  }

  create(input: ToolContextInput): ToolContext {
    const workdir = this.workdir();
    const logger = this.options.logger.child({
      traceId: input.trace.traceId,
      spanId: input.trace.spanId,
      toolCallId: input.toolCallId,
      toolName: input.toolName,
    });
    const pending = this.options.pending;
    const ctx: ToolContext = {
      agentName: input.agentName,
      instanceKey: input.instanceKey,
      turnId: input.turnId,
      toolCallId: input.toolCallId,
      message: input.message,
      workdir,
      logger: consoleCompatibleLogger(logger),
      trace: input.trace,
      config: input.config,
      signal: input.signal,
      sandbox: input.sandbox ? { ...this.options.sandbox, ...input.sandbox } : this.options.sandbox,
      pending: (handle, options) => pending.mark(handle, options),
      ...(this.options.runtime ? { runtime: this.options.runtime } : {}),
    };
    return ctx;
  }
}
