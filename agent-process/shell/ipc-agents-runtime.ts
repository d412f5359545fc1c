/**
 * The agent side of inter-agent calls (SPEC.md §2.6): `ToolContext.runtime` and the engine's
 * `ctx.agents` both go through here, over the orchestrator IPC channel. Requests carry `replyTo`
 * and the caller's call chain (cycle detection); responses are matched by correlationId. A missing
 * instanceKey is left to the router, which defaults it (ARCHITECTURE §5). Failures reject with an
 * AgentCallError carrying the ErrorShape's code (the agents tool turns it into a ToolResult;
 * middleware sees the throw).
 */
import { ORCHESTRATOR, inReplyToOf, isControlEventType, makeEvent } from '../../shared/ipc/control-events.ts';
import { type ReplyOutcome, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import { type ErrorShape, GoondanError, runtimeError } from '../../shared/errors/index.ts';
import { newId } from '../../shared/ids.ts';
import type { AgentEvent, EventSource, InterAgentReply } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
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
import type { ShellChannel } from '../../shared/child/child-shell.ts';
import { type ControlAnswer, requestControl } from '../../shared/child/control-request.ts';
import { ASYNC_KEY, ASYNC_REPLY_FOR_KEY, DEFAULT_REQUEST_TIMEOUT_MS, CALL_CHAIN_KEY, HOPS_KEY, TIMEOUT_KEY, callChainOf, hopsOf } from '../../shared/ipc/request-metadata.ts';
import { interAgentRefusal } from '../../shared/inter-agent-scope.ts';
import type { InterAgentPlan } from '../../shared/types/bundle.ts';
import { agentKey } from '../../shared/ipc/agent-id.ts';
import type { ControlRequestType } from '../../shared/ipc/control-results.ts';
import type { UnsyncedDependencies } from './unsynced-dependencies.ts';

/** SPEC.md §2.6: the middleware path throws `{name: 'AgentRequestError', code, target}`. */
export class AgentCallError extends GoondanError {
  constructor(
    error: ErrorShape,
    readonly target: string,
  ) {
    super(error.code, error.category, error.message, {
      ...(error.suggestion !== undefined ? { suggestion: error.suggestion } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
    });
    this.name = 'AgentRequestError';
  }
}

export interface IpcAgentsRuntimeOptions {
  channel: ShellChannel;
  self: EventSource;
  agentName: string;
  instanceKey: string;
  /** Agents of the swarm; a send to anything else is refused locally (`accepted: false`). */
  swarmAgents: () => readonly string[];
  /** Which instances this agent may reach, and the hop limit (the orchestrator enforces them too). */
  interAgent: () => InterAgentPlan;
  /** Replies received before their callee's turn was on disk: a message out waits for them. */
  unsynced: UnsyncedDependencies;
}

export class IpcAgentsRuntime implements AgentToolRuntime {
  private currentEvent: AgentEvent | undefined;
  private asyncReplyHandler: ((reply: InterAgentReply) => void) | undefined;
  private syncWaits = 0;

  constructor(private readonly options: IpcAgentsRuntimeOptions) {}

  /** The event whose turn is running: its trace and call chain flow into outgoing requests. */
  setCurrentEvent(event: AgentEvent | undefined): void {
    this.currentEvent = event;
  }

  get currentEventId(): string | undefined {
    return this.currentEvent?.id;
  }

  /** Sync requests waiting for their reply now. */
  get syncRequestsWaiting(): number {
    return this.syncWaits;
  }

  onAsyncReply(handler: (reply: InterAgentReply) => void): void {
    this.asyncReplyHandler = handler;
  }

  async request(target: string, event: OutgoingAgentEvent, options: AgentRequestOptions = {}): Promise<AgentRequestResult> {
    const input = requireInput(target, event);
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const correlationId = options.requestId !== undefined ? `corr_${options.requestId}` : newId('corr');
    const self = { agent: this.options.agentName, instanceKey: this.options.instanceKey };
    this.assertReachable(target, event.instanceKey, true);
    const outgoing = this.buildEvent(event, input, requireMessageType(target, event.type ?? 'agent.request'), {
      [CALL_CHAIN_KEY]: [...callChainOf(this.currentEvent), agentKey(self)],
      [TIMEOUT_KEY]: timeoutMs,
      ...(options.async ? { [ASYNC_KEY]: true } : {}),
    });
    if (options.requestId !== undefined) outgoing.id = `evt_${options.requestId}`;
    outgoing.replyTo = { target: this.options.agentName, correlationId };
    const { replies } = this.options.channel;
    const { unsynced } = this.options;
    // What this message says may rest on replies whose callee has not synced yet.
    await unsynced.settled();
    const received = (outcome: ReplyOutcome): ReplyOutcome => {
      if (outcome.unsynced) unsynced.add(correlationId);
      return outcome;
    };
    if (options.async) {
      // The reply goes into the conversation before a later step instead of resolving a promise.
      replies.wait(correlationId, timeoutMs, (outcome) => this.deliverAsync(correlationId, target, outgoing, received(outcome)));
      this.options.channel.post(target, outgoing, true);
      return { eventId: outgoing.id, target, correlationId, accepted: true, async: true };
    }
    const reply = new Promise<ReplyOutcome>((resolve) => replies.wait(correlationId, timeoutMs, (outcome) => resolve(received(outcome))));
    // Ahead of this loop turn's runtime events (ShellChannel.post): the orchestrator routes it first.
    this.options.channel.post(target, outgoing, true);
    this.syncWaits += 1;
    const outcome = await reply.finally(() => {
      this.syncWaits -= 1;
    });
    if (outcome.status !== 'ok') throw new AgentCallError(outcome.error ?? runtimeError('AGENT_TURN_FAILED', `request to '${target}' failed`), target);
    return { eventId: outgoing.id, target, correlationId, response: outcome.output };
  }

  async send(target: string, event: OutgoingAgentEvent): Promise<AgentSendResult> {
    const input = requireInput(target, event);
    const outgoing = this.buildEvent(event, input, requireMessageType(target, event.type ?? 'agent.send'), {});
    // SPEC.md §2.6 [S]: a send to an unknown target returns accepted:false instead of throwing.
    if (!this.options.swarmAgents().includes(target)) return { eventId: outgoing.id, target, accepted: false };
    // A send is not answered: a refusal must reach the model here, as its tool's error.
    this.assertReachable(target, event.instanceKey, true);
    await this.options.unsynced.settled();
    const accepted = this.options.channel.post(target, outgoing, true);
    return { eventId: outgoing.id, target, accepted };
  }

  async spawn(target: string, options: { instanceKey?: string; cwd?: string } = {}): Promise<AgentSpawnResult> {
    this.assertReachable(target, options.instanceKey, false);
    return this.control(target, 'runtime.spawn', {
      target,
      ...(options.instanceKey ? { instanceKey: options.instanceKey } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
  }

  list(options: { includeAll?: boolean } = {}): Promise<{ agents: AgentInstanceInfo[] }> {
    return this.control(ORCHESTRATOR, 'runtime.list', { includeAll: options.includeAll === true });
  }

  catalog(): Promise<AgentCatalog> {
    return this.control(ORCHESTRATOR, 'runtime.catalog', {});
  }

  // ── internals ───────────────────────────────────────────────────────────

  /** Throws the refusal the orchestrator would give a message (or spawn) to `target` at `instanceKey`. */
  private assertReachable(target: string, instanceKey: string | undefined, startsHop: boolean): void {
    const self = { agent: this.options.agentName, instanceKey: this.options.instanceKey };
    const refusal = interAgentRefusal(this.options.interAgent(), self, instanceKey ?? self.instanceKey, startsHop ? this.nextHops() : undefined);
    if (refusal) throw new AgentCallError(refusal, target);
  }

  private nextHops(): number {
    return hopsOf(this.currentEvent) + 1;
  }

  private buildEvent(event: OutgoingAgentEvent, input: string, type: string, extra: JsonObject): AgentEvent {
    const traceId = event.traceId ?? this.currentEvent?.traceId;
    return makeEvent(type, this.options.self, {
      input,
      // `__` keys are the runtime's (call chain, hops, async): a tool call's metadata cannot set them.
      metadata: { ...ownMetadata(event.metadata), [HOPS_KEY]: this.nextHops(), ...extra },
      ...(event.instanceKey !== undefined ? { instanceKey: event.instanceKey } : {}),
      ...(traceId ? { traceId } : {}),
      ...(event.parentSpanId ? { parentSpanId: event.parentSpanId } : {}),
      ...(event.auth ? { auth: event.auth } : {}),
    });
  }

  private async control<K extends ControlRequestType & ('runtime.spawn' | 'runtime.list' | 'runtime.catalog')>(
    target: string,
    type: K,
    payload: Parameters<typeof requestControl<K>>[2],
  ) {
    const answer: ControlAnswer<K> = await requestControl({ channel: this.options.channel, self: this.options.self }, type, payload, DEFAULT_REQUEST_TIMEOUT_MS);
    if (!answer.ok) throw new AgentCallError(answer.error, target);
    return answer.value;
  }

  /**
   * A reply to an async request of an earlier process of this instance, kept in the durable inbox
   * by the orchestrator (issue 10); undefined for any other reply.
   */
  keptAsyncReply(event: AgentEvent): InterAgentReply | undefined {
    const requestEventId = event.metadata?.[ASYNC_REPLY_FOR_KEY];
    const correlationId = inReplyToOf(event);
    if (typeof requestEventId !== 'string' || !correlationId) return undefined;
    return this.asyncReply(correlationId, event.source.name, requestEventId, event.traceId, replyOutcomeOf(event));
  }

  private deliverAsync(correlationId: string, target: string, request: AgentEvent, outcome: ReplyOutcome): void {
    this.asyncReplyHandler?.(this.asyncReply(correlationId, target, request.id, request.traceId, outcome));
  }

  private asyncReply(correlationId: string, target: string, requestEventId: string, traceId: string | undefined, outcome: ReplyOutcome): InterAgentReply {
    return {
      kind: 'inter_agent_response',
      version: 1,
      requestId: correlationId,
      requestEventId,
      fromAgentId: target,
      toAgentId: this.options.agentName,
      async: true,
      status: outcome.status,
      text: outcome.output,
      receivedAt: new Date().toISOString(),
      ...(traceId ? { traceId } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }
}

/** A tool call's metadata without the keys the runtime acts on: `__*` (call chain, hops, async) and `inReplyTo` (which makes a message a reply). */
function ownMetadata(metadata: JsonObject | undefined): JsonObject {
  if (!metadata) return {};
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !key.startsWith('__') && key !== 'inReplyTo'));
}

/** `runtime.*` events are the orchestrator's control messages (usage reports, approvals, restarts): never a message between agents. */
function requireMessageType(target: string, type: string): string {
  if (isControlEventType(type)) {
    throw new AgentCallError(runtimeError('INVALID_REQUEST', `the event type '${type}' is reserved for the runtime; a message to '${target}' cannot use it`), target);
  }
  return type;
}

function requireInput(target: string, event: OutgoingAgentEvent): string {
  // SPEC.md §2.6 [M]: request/send need a non-empty input.
  if (typeof event.input !== 'string' || event.input.trim() === '') {
    throw new AgentCallError(runtimeError('INVALID_REQUEST', `a message to '${target}' needs a non-empty input`), target);
  }
  return event.input;
}
