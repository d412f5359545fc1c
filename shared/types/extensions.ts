/**
 * The Extension contract (SPEC.md §4): middleware contexts for the three pipelines and the
 * ExtensionApi handed to `register(api, config)`. Extension entry modules import these types only.
 */
import type { AgentEvent } from './events.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { ConversationState, MessageEvent } from './messages.ts';
import type { ProcessSandbox } from './sandbox.ts';
import type { Logger, ToolCatalogItem, ToolHandler, ToolPolicyVerdict, ToolResult } from './tools.ts';
import type { RuntimeEvent, RuntimeEventType, StepResult, TurnResult } from './turns.ts';

/** What `ctx.runtime` tells middleware about where it runs (SPEC.md §2.7). */
export interface MiddlewareRuntimeInfo {
  agent: { name: string; bundleRoot: string; prompt?: { system?: string } };
  swarm: { swarmName: string; entryAgent: string; selfAgent: string; availableAgents: string[]; callableAgents: string[] };
  inbound: {
    eventId: string;
    eventType: string;
    sourceKind: string;
    sourceName: string;
    createdAt: string;
    instanceKey?: string;
    eventMetadata?: JsonObject;
    /** A connector event's properties (`chat_id`, `channel`, `thread_ts`, …), from `AgentEvent.source`. */
    properties?: Record<string, string>;
  };
  call?: { callerAgent?: string; callerInstanceKey?: string; replyTo?: { target: string; correlationId: string } };
}

/** `ctx.agents` in turn and step middleware (never in toolCall, SPEC.md §2.6). Errors throw. */
export interface MiddlewareAgentsApi {
  request(req: {
    target: string;
    input: string;
    instanceKey?: string;
    timeoutMs?: number;
    async?: boolean;
    metadata?: JsonObject;
  }): Promise<{ target: string; response: string; correlationId?: string; accepted?: boolean; async?: boolean }>;
  send(req: { target: string; input: string; instanceKey?: string; metadata?: JsonObject }): Promise<{ accepted: boolean }>;
}

interface BaseMiddlewareContext {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly traceId: string;
}

export interface TurnMiddlewareContext extends BaseMiddlewareContext {
  readonly inputEvent: AgentEvent;
  readonly conversationState: ConversationState;
  readonly agents: MiddlewareAgentsApi;
  readonly runtime: MiddlewareRuntimeInfo;
  emitMessageEvent(event: MessageEvent): void;
  metadata: Record<string, JsonValue>;
  next(): Promise<TurnResult>;
}

export interface TurnInfo {
  readonly id: string;
  readonly agentName: string;
  readonly inputEvent: AgentEvent;
  /** Steps finished so far in this turn. */
  readonly steps: readonly StepResult[];
  metadata: Record<string, JsonValue>;
}

export interface StepMiddlewareContext extends BaseMiddlewareContext {
  readonly turn: TurnInfo;
  /** 0-based. */
  readonly stepIndex: number;
  readonly conversationState: ConversationState;
  readonly agents: MiddlewareAgentsApi;
  readonly runtime: MiddlewareRuntimeInfo;
  emitMessageEvent(event: MessageEvent): void;
  /** Edits made before `next()` decide exactly what the model sees in this step. */
  toolCatalog: ToolCatalogItem[];
  metadata: Record<string, JsonValue>;
  next(): Promise<StepResult>;
}

export interface ToolCallMiddlewareContext extends BaseMiddlewareContext {
  readonly stepIndex: number;
  readonly toolName: string;
  readonly toolCallId: string;
  /** Edits made before `next()` reach the handler. */
  args: JsonObject;
  /** The catalog item of this tool in the current step, if it is in the catalog. */
  readonly catalogItem?: ToolCatalogItem;
  /** How people see this call: the rendered `summary`, `displayName` and `icon` of its export. */
  readonly display: ToolCallDisplay;
  /**
   * The tool's own verdict on this call (its module's `evaluatePolicy`), evaluated once per call;
   * undefined when the tool has no opinion. The engine enforces it before the handler runs.
   */
  toolVerdict(): Promise<ToolPolicyVerdict | undefined>;
  /**
   * Set by a permission middleware once a person approved this call, so the engine does not ask
   * again for the tool's own `ask`.
   */
  approval?: ApprovalDecision;
  metadata: Record<string, JsonValue>;
  /**
   * A middleware may also return the spec's ToolResult shape without ids (`{status, output}`, tool
   * spec §10.1); the engine fills in the call's id and name.
   */
  next(): Promise<ToolResult>;
}

export interface ToolCallDisplay {
  /** The export's `summary` rendered over this call's arguments (one line). */
  summary?: string;
  displayName?: string;
  icon?: string;
}

export type TurnMiddleware = (ctx: TurnMiddlewareContext) => Promise<TurnResult>;
export type StepMiddleware = (ctx: StepMiddlewareContext) => Promise<StepResult>;
export type ToolCallMiddleware = (ctx: ToolCallMiddlewareContext) => Promise<ToolResult>;

export interface PipelineRegistry {
  register(type: 'turn', fn: TurnMiddleware, options?: { priority?: number }): void;
  register(type: 'step', fn: StepMiddleware, options?: { priority?: number }): void;
  register(type: 'toolCall', fn: ToolCallMiddleware, options?: { priority?: number }): void;
}

/** A tool call waiting for a human decision (tool permission policy, `ask`). */
export interface ApprovalRequest {
  toolName: string;
  toolCallId: string;
  args: JsonObject;
  /** Why approval is needed (the matching rule), shown to the approver. */
  reason: string;
  /** Unanswered requests are denied after this long. */
  timeoutMs: number;
  /** What the call does in one line ("Run git status"), from the export's `summary`. */
  summary?: string;
  displayName?: string;
  icon?: string;
  /** The tool's own preview of the call's effect (a diff, the commands of a line). */
  preview?: string;
}

export interface ApprovalDecision {
  approved: boolean;
  /** `session`: the approver allowed this tool for the rest of the agent's session. */
  scope: 'once' | 'session';
  /** Who or what decided (`cli`, `http`, `timeout`, `no-approver`). */
  decidedBy: string;
  reason?: string;
}

export interface ExtensionApi {
  /** Name of the Extension resource this api belongs to. */
  readonly name: string;
  pipeline: PipelineRegistry;
  tools: {
    /** `item.name` must be `x__y`; a later registration of the same name wins (SPEC.md §4.3). */
    register(item: ToolCatalogItem, handler: ToolHandler): void;
  };
  state: {
    get(): Promise<JsonValue | null>;
    /** Persisted to `extensions/<name>.json` at turn end. */
    set(value: JsonValue): Promise<void>;
  };
  events: {
    /** Runtime event names (`turn.completed`, …) and custom names are subscribable. */
    on(name: RuntimeEventType | string, handler: (payload: RuntimeEvent | JsonValue) => void): () => void;
    emit(name: string, payload?: JsonValue): void;
  };
  logger: Logger;
  /**
   * Runs when the agent process shuts down (engine close), awaited with a time limit: release
   * what the extension holds (child processes, sockets). Optional so older engines stay valid.
   */
  onClose?(handler: () => void | Promise<void>): void;
  /** Asks a human (terminal or HTTP API) to approve a tool call; absent when nobody can be asked. */
  approvals?: { request(request: ApprovalRequest): Promise<ApprovalDecision> };
  /** The agent's sandbox, for processes the extension starts (stdio MCP servers). Optional so older engines stay valid. */
  readonly sandbox?: ProcessSandbox;
}

/** Shape of an Extension entry module. */
export interface ExtensionModule {
  register(api: ExtensionApi, config: JsonObject): void | Promise<void>;
}
