/**
 * Routes every message the orchestrator receives (ARCHITECTURE §2): requests and sends by target
 * agent + instanceKey (auto-spawn), responses by correlationId to the exact requester, control
 * events (`runtime.*`) to the ControlHandler, connector events through the Connection's ingress rules.
 * The router knows nothing about turns; it only moves events and keeps the pending table.
 */
import { CONTROL, ORCHESTRATOR, inReplyToOf, isControlEvent, makeEvent, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { type ReplyOutcome, errorOutcome, makeReplyEvent, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import { newId, newTraceId } from '../../shared/ids.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ConnectionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentCallErrorCode, AgentEvent, EventSource } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { Metrics } from '../http/metrics.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, callChainOf, callNode, requestTimeoutOf } from '../../shared/ipc/request-metadata.ts';
import { extendCallChain } from './call-chain.ts';
import { ControlHandler } from './control-handler.ts';
import { InstanceOwners } from './instance-owners.ts';
import { routeIngress } from './ingress.ts';
import { type PendingRequest, PendingRequests, type Requester } from './pending-requests.ts';


/** One line of the human-readable exchange (`goondan run` in a terminal). */
export interface ExchangeNote {
  kind: 'request' | 'send' | 'response' | 'error';
  from: string;
  to: string;
  text: string;
  traceId?: string;
  /** One side is outside the swarm (HTTP, CLI, a connector), not agent-to-agent traffic. */
  external: boolean;
}

export interface RouterDeps {
  swarm(): SwarmPlan;
  connections(): ConnectionPlan[];
  supervisor: Supervisor;
  delivery: Delivery;
  metrics: Metrics;
  runtimeEvents: RuntimeEventBus;
  logger: RootLogger;
  onExchange?(note: ExchangeNote): void;
  /** A process asked to be restarted after its current turn (self-restart tool). */
  onRestartRequested(proc: ManagedProcess, reason: string): void;
  approvals: ApprovalBroker;
}

export interface ExternalSubmission {
  agent: string;
  instanceKey: string;
  input: string;
  source: EventSource;
  wait: boolean;
  timeoutMs?: number;
  traceId?: string;
  metadata?: JsonObject;
}

export class Router {
  readonly pending = new PendingRequests();
  private readonly owners = new InstanceOwners();
  private readonly control: ControlHandler;

  constructor(private readonly deps: RouterDeps) {
    this.control = new ControlHandler({ ...deps, owners: this.owners, isKnownAgent: (name) => this.isKnownAgent(name) });
  }

  /** Entry point for every validated message from a child process. */
  handle(message: TypedIpcMessage, from: ManagedProcess): void {
    switch (message.type) {
      case 'shutdown_ack':
        this.deps.logger.info({ process: from.key }, 'shutdown acknowledged');
        return;
      case 'shutdown':
        this.deps.logger.warn({ process: from.key }, 'dropped a shutdown message sent by a child');
        return;
      case 'event':
        this.handleEvent(message.to, message.payload, from);
        return;
    }
  }

  /** HTTP, CLI and the one-shot runner: one event into the swarm, optionally awaiting the reply. */
  submit(submission: ExternalSubmission): { eventId: string; traceId: string; reply?: Promise<ReplyOutcome> } {
    const traceId = submission.traceId ?? newTraceId();
    const correlationId = submission.wait ? newId('corr') : undefined;
    const event = makeEvent('api.input', submission.source, {
      input: submission.input,
      instanceKey: submission.instanceKey,
      traceId,
      ...(submission.metadata ? { metadata: submission.metadata } : {}),
      ...(correlationId ? { replyTo: { target: ORCHESTRATOR, correlationId } } : {}),
    });
    if (!correlationId) {
      this.dispatch(submission.agent, submission.instanceKey, event, submission.source.name, 'send', true);
      return { eventId: event.id, traceId };
    }
    const reply = new Promise<ReplyOutcome>((resolve) => {
      this.addPending(correlationId, { kind: 'local', resolve }, submission.agent, submission.instanceKey, event, submission.timeoutMs);
    });
    this.dispatch(submission.agent, submission.instanceKey, event, submission.source.name, 'request', true);
    return { eventId: event.id, traceId, reply };
  }

  isKnownAgent(name: string): boolean {
    return this.deps.swarm().agents.includes(name);
  }


  // ── events from children ────────────────────────────────────────────────

  private handleEvent(to: string, event: AgentEvent, from: ManagedProcess): void {
    if (isControlEvent(event)) {
      this.control.handle(event, from);
      return;
    }
    const correlationId = inReplyToOf(event);
    if (correlationId) {
      this.routeResponse(correlationId, event, from);
      return;
    }
    if (from.kind === 'connector') {
      this.routeConnectorEvent(event, from);
      return;
    }
    this.routeAgentCall(to, event, from);
  }

  private routeAgentCall(target: string, event: AgentEvent, from: ManagedProcess): void {
    const instanceKey = event.instanceKey ?? from.instanceKey; // ARCHITECTURE §5: default = caller's key
    const kind = event.replyTo ? 'request' : 'send';
    if (!this.isKnownAgent(target)) {
      this.refuse(from, event, 'AGENT_NOT_FOUND', `agent '${target}' is not part of swarm '${this.deps.swarm().name}'`);
      return;
    }
    if (event.replyTo) {
      const cycle = extendCallChain(callChainOf(event), callNode(target, instanceKey));
      if (!cycle.ok) {
        this.refuse(from, event, 'CIRCULAR_CALL_DETECTED', `circular call: ${cycle.cycle.join(' → ')}`);
        return;
      }
      const requester: Requester = { kind: 'process', key: from.key, agent: from.name, incarnation: from.incarnation };
      this.addPending(event.replyTo.correlationId, requester, target, instanceKey, event, requestTimeoutOf(event));
    }
    this.owners.record(target, instanceKey, { ownerAgent: from.name, ownerInstanceKey: from.instanceKey });
    this.dispatch(target, instanceKey, { ...event, instanceKey }, from.name, kind, false);
  }

  private routeConnectorEvent(event: AgentEvent, from: ManagedProcess): void {
    const connection = this.deps.connections().find((c) => c.name === from.name);
    const swarm = this.deps.swarm();
    const properties: Record<string, string> = {};
    for (const [key, value] of Object.entries(event.source)) {
      if (key !== 'kind' && key !== 'name' && key !== 'event' && value !== null && typeof value !== 'object') properties[key] = String(value);
    }
    const eventName = typeof event.source.event === 'string' ? event.source.event : event.type.replace(/^connector\./, '');
    const target = routeIngress(connection?.rules ?? [], swarm.entryAgent, { name: eventName, properties, instanceKey: event.instanceKey ?? from.name });
    if (!target) {
      this.deps.logger.info({ connection: from.name, event: eventName, eventId: event.id }, 'no ingress rule matched; event dropped');
      if (event.replyTo) this.refuse(from, event, 'AGENT_NOT_FOUND', `no ingress rule of connection '${from.name}' matched event '${eventName}'`);
      return;
    }
    if (!this.isKnownAgent(target.agent)) {
      this.refuse(from, event, 'AGENT_NOT_FOUND', `ingress routes to '${target.agent}', which is not part of swarm '${swarm.name}'`);
      return;
    }
    // Every connector event is an independent turn with its own trace (SPEC.md §6).
    const routed: AgentEvent = { ...event, instanceKey: target.instanceKey, traceId: event.traceId ?? newTraceId() };
    if (event.replyTo) {
      const requester: Requester = { kind: 'process', key: from.key, agent: from.name, incarnation: from.incarnation };
      // A connector's `request(event, {timeoutMs})` is honoured like an agent's (chat replies may take minutes).
      this.addPending(event.replyTo.correlationId, requester, target.agent, target.instanceKey, routed, requestTimeoutOf(event));
    }
    this.dispatch(target.agent, target.instanceKey, routed, from.name, event.replyTo ? 'request' : 'send', true);
  }

  private routeResponse(correlationId: string, event: AgentEvent, from: ManagedProcess): void {
    const request = this.pending.take(correlationId);
    if (!request) {
      this.deps.logger.debug({ correlationId, from: from.key, traceId: event.traceId }, 'response for an unknown or expired request; dropped');
      return;
    }
    this.deps.metrics.eventsRouted.inc({ kind: 'response' });
    const outcome = replyOutcomeOf(event);
    const external = request.requester.kind === 'local' || !this.isKnownAgent(request.requester.agent);
    this.deps.onExchange?.({
      kind: outcome.status === 'ok' ? 'response' : 'error',
      external,
      from: from.name,
      to: request.requester.kind === 'local' ? 'you' : request.requester.agent,
      text: outcome.status === 'ok' ? outcome.output : `${outcome.errorCode ?? outcome.status}: ${outcome.errorMessage ?? ''}`,
      ...(event.traceId ? { traceId: event.traceId } : {}),
    });
    this.answer(request.requester, correlationId, outcome, event);
  }

  // ── shared mechanics ────────────────────────────────────────────────────

  private dispatch(agent: string, instanceKey: string, event: AgentEvent, from: string, kind: 'request' | 'send', external: boolean): void {
    const proc = this.deps.supervisor.ensure('agent', agent, instanceKey);
    this.deps.delivery.deliver(proc, event, from);
    this.deps.metrics.eventsRouted.inc({ kind });
    this.deps.logger.debug({ eventId: event.id, kind, from, to: proc.key, traceId: event.traceId, parentSpanId: event.parentSpanId }, 'event routed');
    this.deps.onExchange?.({ kind, from, to: agent, text: event.input ?? '', external, ...(event.traceId ? { traceId: event.traceId } : {}) });
  }

  private addPending(correlationId: string, requester: Requester, targetAgent: string, instanceKey: string, event: AgentEvent, timeoutMs: number | undefined): void {
    const timeout = timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : DEFAULT_REQUEST_TIMEOUT_MS;
    this.pending.add(
      {
        correlationId,
        requester,
        targetAgent,
        targetKey: callNode(targetAgent, instanceKey),
        requestEventId: event.id,
        ...(event.traceId ? { traceId: event.traceId } : {}),
        deadline: Date.now() + timeout,
      },
      (request) => {
        this.deps.logger.warn({ correlationId, target: request.targetKey, timeoutMs: timeout, traceId: request.traceId }, 'request timed out');
        this.answer(request.requester, correlationId, errorOutcome('AGENT_REQUEST_TIMEOUT', `'${targetAgent}' did not answer within ${timeout} ms`, request.traceId));
      },
    );
  }

  /** Fails every request waiting on a dead-lettered event. */
  failRequestsFor(event: AgentEvent, code: AgentCallErrorCode, message: string): void {
    this.fail(this.pending.forRequestEvent(event.id), code, message);
  }

  /**
   * Fails every request waiting on a process that stopped for good (shutdown, removed by a
   * reload, instance deleted): its unprocessed events stay in the inbox for the next start, but
   * callers must not wait out their timeout — a caller blocked on it could never drain.
   */
  failRequestsTargeting(targetKey: string, code: AgentCallErrorCode, message: string): void {
    this.fail(this.pending.forTarget(targetKey), code, message);
  }

  private fail(requests: PendingRequest[], code: AgentCallErrorCode, message: string): void {
    for (const request of requests) {
      this.pending.take(request.correlationId);
      this.answer(request.requester, request.correlationId, errorOutcome(code, message, request.traceId));
    }
  }

  /** Delivers an outcome to the requester: a local waiter, or the exact process incarnation that asked. */
  private answer(requester: Requester, correlationId: string, outcome: ReplyOutcome, original?: AgentEvent): void {
    if (requester.kind === 'local') {
      requester.resolve(outcome);
      return;
    }
    const proc = this.deps.supervisor.byKey(requester.key);
    if (!proc || proc.incarnation !== requester.incarnation || !proc.alive) {
      this.deps.logger.info({ correlationId, requester: requester.key, traceId: outcome.traceId }, 'requester is gone; reply dropped');
      return;
    }
    const payload = original ?? makeReplyEvent(correlationId, ORCHESTRATOR_SOURCE, outcome);
    proc.send({ type: 'event', from: original?.source.name ?? ORCHESTRATOR, to: proc.name, payload });
  }

  /** Unknown target, cycle, no route: a structured error back to the sender (and no delivery). */
  private refuse(from: ManagedProcess, event: AgentEvent, code: AgentCallErrorCode, message: string): void {
    this.deps.logger.warn({ from: from.key, code, eventId: event.id, traceId: event.traceId }, message);
    this.deps.onExchange?.({ kind: 'error', from: ORCHESTRATOR, to: from.name, text: `${code}: ${message}`, external: from.kind === 'connector' });
    if (!event.replyTo) {
      from.send({
        type: 'event',
        from: ORCHESTRATOR,
        to: from.name,
        payload: makeEvent(CONTROL.error, ORCHESTRATOR_SOURCE, { metadata: { code, message, eventId: event.id } }),
      });
      return;
    }
    from.send({
      type: 'event',
      from: ORCHESTRATOR,
      to: from.name,
      payload: makeReplyEvent(event.replyTo.correlationId, ORCHESTRATOR_SOURCE, errorOutcome(code, message, event.traceId)),
    });
  }
}
