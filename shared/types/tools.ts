/**
 * The Tool system contract (tool spec v2, `../shared/seeds/000_…txt`). Tool entry modules import
 * these types only: `export const handlers: Record<string, ToolHandler> = { … }`.
 */
import type { ErrorShape } from '../errors/error-shape-type.ts';
import type { AgentEvent } from './events.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { Message } from './messages.ts';
import type { JsonSchemaObject, ToolPolicyAction } from './resources.ts';
import type { ProcessSandbox } from './sandbox.ts';

/** Where a catalog item comes from (tool spec §13.1). */
export interface ToolSource {
  type: 'config' | 'extension' | 'mcp';
  name: string;
  mcp?: { extensionName: string; serverName?: string };
}

/** What the model sees for one tool in one step: `{resource}__{export}` (tool spec §5). */
export interface ToolCatalogItem {
  name: string;
  description?: string;
  parameters?: JsonSchemaObject;
  source?: ToolSource;
  /** Read-only tools are allowed by the default permission policy. */
  readOnly?: boolean;
  /** Safe to run again when a crash interrupted it (issue 10); otherwise the resumed turn answers E_TOOL_INTERRUPTED. */
  idempotent?: boolean;
  /** Shown to people instead of `name` (approval prompt, logs, tool-search). */
  displayName?: string;
  /** An emoji or a short name shown beside displayName. */
  icon?: string;
  /** One-line template of what a call does, over its arguments: `"Run {{args.command}}"`. */
  summary?: string;
  /** JSON Schema of the result (`Tool.spec.exports[].returns`). */
  returns?: JsonObject;
}

export interface ToolCall {
  id: string;
  name: string;
  args: JsonObject;
  /**
   * The model's raw argument text when it was not a usable JSON object (then `args` is `{}` and the
   * call is answered with E_TOOL_INVALID_ARGS without running any middleware or handler).
   */
  rawArgs?: string;
}

/** The error of a ToolResult (tool spec §10.3): the one ErrorShape, `code` always set. */
export type ToolError = ErrorShape;

/** Result of one tool call as the model (and the toolCall middleware) sees it (tool spec §10). */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  status: 'ok' | 'error' | 'pending';
  output?: JsonValue;
  handle?: string;
  error?: ToolError;
}

/** Minimal structured logger handed to tools and extensions (a pino child underneath). */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/**
 * `ToolContext.logger` (tool spec §7.3 `Console`): `log`/`info`/`warn`/`error`/`debug` take what
 * `console` takes (`logger.log('read', n, 'files')`) and write one structured line with the call's
 * trace fields; an object first is pino's form (`logger.info({path}, 'read')`: its keys become fields).
 */
export interface ToolLogger extends Logger {
  log(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
}

/** What a tool module's `evaluatePolicy` answers about one call (seed 004 §6.2). */
export interface ToolPolicyVerdict {
  /** Stricter than the permission policy's verdict wins; absent = no opinion (allow). */
  action?: ToolPolicyAction;
  /** Why, shown to the approver and in a denial. */
  reason?: string;
  /** What the call would do (a diff, the commands of a line), shown in the approval prompt. */
  preview?: string;
}

/** The second argument of `evaluatePolicy`: which call is judged, and where it would run. */
export interface ToolPolicyContext {
  readonly agentName: string;
  readonly instanceKey: string;
  /** `<tool>__<export>` */
  readonly toolName: string;
  readonly exportName: string;
  readonly workdir: string;
  readonly config: JsonObject;
}

/** `export function evaluatePolicy(args, ctx)` of a tool module: called for every call of its exports. */
export type ToolPolicyEvaluator = (args: JsonObject, ctx: ToolPolicyContext) => ToolPolicyVerdict | undefined | Promise<ToolPolicyVerdict | undefined>;

/** Options of `ctx.pending(handle, …)`. */
export interface PendingOptions {
  /** Shown to the model with the pending status (e.g. what to expect). */
  output?: JsonValue;
  /** The work's result: delivered into the conversation as a message when it settles (like an async reply). */
  completion?: Promise<JsonValue>;
}

// ── Inter-agent runtime (SPEC.md §2.6) ─────────────────────────────────────

export interface AgentRequestOptions {
  timeoutMs?: number;
  async?: boolean;
  /**
   * A stable id for this request (issue 10): the same id sends the same event id and correlationId,
   * so a request repeated after a crash is recognised by the callee (its turn runs once) and its
   * answer reaches the repeated call.
   */
  requestId?: string;
}
export interface AgentRequestResult {
  eventId: string;
  target: string;
  correlationId: string;
  /** The callee's reply text (sync requests). */
  response?: string;
  /** Set when `async: true`: the reply will be injected before a later step. */
  accepted?: boolean;
  async?: boolean;
}
export interface AgentSendResult {
  eventId: string;
  target: string;
  accepted: boolean;
}
export interface AgentSpawnResult {
  target: string;
  instanceKey: string;
  spawned: boolean;
  cwd?: string;
}
export interface AgentInstanceInfo {
  target: string;
  instanceKey: string;
  ownerAgent?: string;
  ownerInstanceKey?: string;
  createdAt: string;
  status: string;
  cwd?: string;
}
export interface AgentCatalog {
  swarmName: string;
  entryAgent: string;
  selfAgent: string;
  availableAgents: string[];
  /** availableAgents minus self. */
  callableAgents: string[];
}

/** Event fields a caller may set; id, createdAt, source and trace are filled in by the runtime. */
export type OutgoingAgentEvent = Pick<AgentEvent, 'input' | 'instanceKey' | 'metadata' | 'auth'> & {
  type?: string;
  /** The calling tool's span (ToolContext.trace): keeps one traceId across agents (SPEC.md §3.2). */
  traceId?: string;
  parentSpanId?: string;
};

/** `ToolContext.runtime`: the one path for inter-agent calls (tool path errors → ToolResults). */
export interface AgentToolRuntime {
  request(target: string, event: OutgoingAgentEvent, options?: AgentRequestOptions): Promise<AgentRequestResult>;
  send(target: string, event: OutgoingAgentEvent): Promise<AgentSendResult>;
  spawn(target: string, options?: { instanceKey?: string; cwd?: string }): Promise<AgentSpawnResult>;
  list(options?: { includeAll?: boolean }): Promise<{ agents: AgentInstanceInfo[] }>;
  catalog(): Promise<AgentCatalog>;
}

/** Passed to every handler (tool spec §7.3, plus the optional inter-agent runtime of SPEC.md §5.1). */
export interface ToolContext {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly toolCallId: string;
  /** The assistant message that holds this call. */
  readonly message: Message;
  /** The instance's workspace directory; the default cwd of file and shell tools. */
  readonly workdir: string;
  readonly logger: ToolLogger;
  /** Trace of this tool call's span (for tools that cause further events). */
  readonly trace?: { traceId: string; spanId: string };
  /**
   * `Tool.spec.config` with the Agent's `tools[].config` shallow-merged over it (e.g. extra
   * file-system roots). Empty object when neither is set.
   */
  readonly config: JsonObject;
  /** Inter-agent calls through the orchestrator (used by the `agents` tool). */
  readonly runtime?: AgentToolRuntime;
  /** Aborted when the call times out or the process drains. */
  readonly signal?: AbortSignal;
  /**
   * How processes this tool starts must be isolated (the agent's sandbox with the tool ref's
   * `config.sandbox` over it). A tool that spawns anything runs it through this.
   */
  readonly sandbox: ProcessSandbox;
  /**
   * tool spec §10.2: `return ctx.pending(handle, {completion})` ends the call with `{status:
   * "pending", handle}` for the model; when `completion` settles, its result is delivered into the
   * conversation (before the next step, or at the start of the next turn). Only the value returned
   * by this function means pending: a plain `{status: "pending"}` object is an ordinary output.
   */
  pending(handle: string, options?: PendingOptions): JsonObject;
}

export type ToolHandler = (ctx: ToolContext, input: JsonObject) => Promise<JsonValue> | JsonValue;

/** Shape of a Tool entry module. */
export interface ToolModule {
  handlers: Record<string, ToolHandler>;
  /** The tool's own permission check, for every call of its exports (seed 004 §6). */
  evaluatePolicy?: ToolPolicyEvaluator;
}

/**
 * A handler may throw this (or any Error carrying `code`/`suggestion`) to shape the ToolResult
 * error; the executor copies `code`, `suggestion` and `helpUrl` when present.
 */
export interface ToolFailure extends Error {
  code?: string;
  suggestion?: string;
  helpUrl?: string;
}
