/**
 * The Tool system contract (tool spec v2, `../shared/seeds/000_…txt`). Tool entry modules import
 * these types only: `export const handlers: Record<string, ToolHandler> = { … }`.
 */
import type { ErrorShape } from '../errors/error-shape.ts';
import type { AgentEvent } from './events.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { Message } from './messages.ts';
import type { JsonSchemaObject } from './resources.ts';

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
  readonly logger: Logger;
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
}

export type ToolHandler = (ctx: ToolContext, input: JsonObject) => Promise<JsonValue> | JsonValue;

/** Shape of a Tool entry module. */
export interface ToolModule {
  handlers: Record<string, ToolHandler>;
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
