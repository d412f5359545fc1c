/**
 * The agent side of inter-agent calls (SPEC.md §2.6): `ToolContext.runtime` and the engine's
 * `ctx.agents` both go through here, over the orchestrator IPC channel. Requests carry `replyTo`
 * and the caller's call chain (cycle detection); responses are matched by correlationId.
 * Failures reject with an error carrying a stable `code` (the agents tool turns it into a
 * ToolResult; middleware sees the throw).
 */
import { CONTROL, ORCHESTRATOR, makeEvent } from '../../shared/ipc/control-events.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { Transport } from '../../shared/ipc/transport.ts';
import { newId } from '../../shared/ids.ts';
import type { AgentCallErrorCode, AgentEvent, InterAgentReply } from '../../shared/types/events.ts';
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';
import type {
  AgentCatalog,
  AgentInstanceInfo,
  AgentRequestOptions,
  AgentRequestResult,
  AgentSendResult,
  AgentSpawnResult,
  AgentToolRuntime,
  OutgoingAgentEvent,
} from '../../shared/types/tools.ts';
import { requestControl } from './control-request.ts';
import type { PendingReplies } from './pending-replies.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, CALL_CHAIN_KEY, TIMEOUT_KEY, callChainOf, callNode } from '../../shared/ipc/request-metadata.ts';


export class AgentCallError extends Error {
  override name = 'AgentRequestError';
  constructor(
    readonly code: AgentCallErrorCode | string,
    message: string,
    readonly target: string,
    readonly suggestion?: string,
  ) {
    super(message);
  }
}

export interface IpcAgentsRuntimeOptions {
  transport: Transport;
  replies: PendingReplies;
  agentName: string;
  instanceKey: string;
  /** Agents of the swarm; a send to anything else is refused locally (`accepted: false`). */
  swarmAgents: () => readonly string[];
}

export class IpcAgentsRuntime implements AgentToolRuntime {
  private currentEvent: AgentEvent | undefined;
  private asyncReplyHandler: ((reply: InterAgentReply) => void) | undefined;

  constructor(private readonly options: IpcAgentsRuntimeOptions) {}

  /** The event whose turn is running: its trace and call chain flow into outgoing requests. */
  setCurrentEvent(event: AgentEvent | undefined): void {
    this.currentEvent = event;
  }

  onAsyncReply(handler: (reply: InterAgentReply) => void): void {
    this.asyncReplyHandler = handler;
  }

  async request(target: string, event: OutgoingAgentEvent, options: AgentRequestOptions = {}): Promise<AgentRequestResult> {
    const input = requireInput(target, event);
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const correlationId = newId('corr');
    const outgoing = this.buildEvent(event, input, event.type ?? 'agent.request', {
      [CALL_CHAIN_KEY]: [...callChainOf(this.currentEvent), callNode(this.options.agentName, this.options.instanceKey)],
      [TIMEOUT_KEY]: timeoutMs,
    });
    outgoing.replyTo = { target: this.options.agentName, correlationId };
    if (options.async) {
      // The reply goes into the conversation before a later step instead of resolving a promise.
      this.options.replies.wait(correlationId, timeoutMs, (outcome) => this.deliverAsync(correlationId, target, outgoing, outcome));
      this.post(target, outgoing);
      return { eventId: outgoing.id, target, correlationId, accepted: true, async: true };
    }
    const reply = new Promise<ReplyOutcome>((resolve) => this.options.replies.wait(correlationId, timeoutMs, resolve));
    this.post(target, outgoing);
    const outcome = await reply;
    if (outcome.status !== 'ok') throw callError(target, outcome);
    return { eventId: outgoing.id, target, correlationId, response: outcome.output };
  }

  async send(target: string, event: OutgoingAgentEvent): Promise<AgentSendResult> {
    const input = requireInput(target, event);
    const outgoing = this.buildEvent(event, input, event.type ?? 'agent.send', {});
    // SPEC.md §2.6 [S]: a send to an unknown target returns accepted:false instead of throwing.
    if (!this.options.swarmAgents().includes(target)) return { eventId: outgoing.id, target, accepted: false };
    const accepted = this.post(target, outgoing);
    return { eventId: outgoing.id, target, accepted };
  }

  async spawn(target: string, options: { instanceKey?: string; cwd?: string } = {}): Promise<AgentSpawnResult> {
    const metadata: JsonObject = { target };
    if (options.instanceKey) metadata.instanceKey = options.instanceKey;
    if (options.cwd) metadata.cwd = options.cwd;
    const result = await this.control(CONTROL.spawn, target, metadata);
    return {
      target,
      instanceKey: typeof result.instanceKey === 'string' ? result.instanceKey : (options.instanceKey ?? this.options.instanceKey),
      spawned: result.spawned === true,
      ...(typeof result.cwd === 'string' ? { cwd: result.cwd } : {}),
    };
  }

  async list(options: { includeAll?: boolean } = {}): Promise<{ agents: AgentInstanceInfo[] }> {
    const result = await this.control(CONTROL.list, ORCHESTRATOR, { includeAll: options.includeAll === true });
    const rows = Array.isArray(result.agents) ? result.agents.filter(isJsonObject) : [];
    return {
      agents: rows.map((row) => ({
        target: String(row.target ?? ''),
        instanceKey: String(row.instanceKey ?? ''),
        status: String(row.status ?? ''),
        createdAt: String(row.createdAt ?? ''),
        ...(typeof row.ownerAgent === 'string' ? { ownerAgent: row.ownerAgent } : {}),
        ...(typeof row.ownerInstanceKey === 'string' ? { ownerInstanceKey: row.ownerInstanceKey } : {}),
        ...(typeof row.cwd === 'string' ? { cwd: row.cwd } : {}),
      })),
    };
  }

  async catalog(): Promise<AgentCatalog> {
    const result = await this.control(CONTROL.catalog, ORCHESTRATOR, {});
    const names = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
    return {
      swarmName: String(result.swarmName ?? ''),
      entryAgent: String(result.entryAgent ?? ''),
      selfAgent: String(result.selfAgent ?? this.options.agentName),
      availableAgents: names(result.availableAgents),
      callableAgents: names(result.callableAgents),
    };
  }

  // ── internals ───────────────────────────────────────────────────────────

  private buildEvent(event: OutgoingAgentEvent, input: string, type: string, extra: JsonObject): AgentEvent {
    const traceId = event.traceId ?? this.currentEvent?.traceId;
    return makeEvent(type, { kind: 'agent', name: this.options.agentName, instanceKey: this.options.instanceKey }, {
      input,
      instanceKey: event.instanceKey ?? this.options.instanceKey,
      metadata: { ...(event.metadata ?? {}), ...extra },
      ...(traceId ? { traceId } : {}),
      ...(event.parentSpanId ? { parentSpanId: event.parentSpanId } : {}),
      ...(event.auth ? { auth: event.auth } : {}),
    });
  }

  private async control(type: string, target: string, metadata: JsonObject): Promise<JsonObject> {
    const outcome = await requestControl(this.options, type, metadata, DEFAULT_REQUEST_TIMEOUT_MS);
    if (outcome.status !== 'ok') throw callError(target, outcome);
    return outcome.result ?? {};
  }

  private post(to: string, event: AgentEvent): boolean {
    return this.options.transport.send({ type: 'event', from: this.options.agentName, to, payload: event });
  }

  private deliverAsync(correlationId: string, target: string, request: AgentEvent, outcome: ReplyOutcome): void {
    const reply: InterAgentReply = {
      kind: 'inter_agent_response',
      version: 1,
      requestId: correlationId,
      requestEventId: request.id,
      fromAgentId: target,
      toAgentId: this.options.agentName,
      async: true,
      status: outcome.status,
      text: outcome.output,
      receivedAt: new Date().toISOString(),
      ...(request.traceId ? { traceId: request.traceId } : {}),
      ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
      ...(outcome.errorMessage ? { errorMessage: outcome.errorMessage } : {}),
    };
    this.asyncReplyHandler?.(reply);
  }
}

function requireInput(target: string, event: OutgoingAgentEvent): string {
  // SPEC.md §2.6 [M]: request/send need a non-empty input.
  if (typeof event.input !== 'string' || event.input.trim() === '') {
    throw new AgentCallError('INVALID_REQUEST', `a message to '${target}' needs a non-empty input`, target, 'pass the text for the agent in `input`');
  }
  return event.input;
}

function callError(target: string, outcome: ReplyOutcome): AgentCallError {
  const code = outcome.errorCode ?? (outcome.status === 'timeout' ? 'AGENT_REQUEST_TIMEOUT' : 'AGENT_TURN_FAILED');
  const suggestions: Record<string, string> = {
    AGENT_NOT_FOUND: 'call agents__catalog to see the agents you can call',
    CIRCULAR_CALL_DETECTED: 'the target is already waiting on this call chain; answer it directly instead of calling back',
    AGENT_REQUEST_TIMEOUT: 'retry with a larger timeoutMs, or use async: true',
    AGENT_CRASHED: 'the target agent crashed repeatedly on this request; rephrase or try another agent',
  };
  return new AgentCallError(code, outcome.errorMessage ?? `request to '${target}' failed`, target, suggestions[code]);
}
