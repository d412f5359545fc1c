/**
 * Routes every message the orchestrator receives (ARCHITECTURE §2): requests and sends by target
 * agent + instanceKey (auto-spawn), responses by correlationId to the exact requester, control
 * events (`runtime.*`) to their handlers, connector events through the Connection's ingress rules.
 * The router knows nothing about turns; it only moves events and keeps the pending table.
 */
import { CONTROL, ORCHESTRATOR, inReplyToOf, isControlEvent, makeEvent } from '../../shared/ipc/control-events.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { validateRuntimeEvent } from '../../shared/ipc/ipc-schemas.ts';
import { type ReplyOutcome, errorOutcome, makeReplyEvent, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import { newId, newTraceId } from '../../shared/ids.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ConnectionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentCallErrorCode, AgentEvent, EventSource } from '../../shared/types/events.ts';
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { Metrics } from '../http/metrics.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import { callChainOf, callNode, extendCallChain } from './call-chain.ts';
import { routeIngress } from './ingress.ts';
import { PendingRequests, type Requester } from './pending-requests.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Metadata key for a request's timeout, set by the requester. */
export const TIMEOUT_KEY = '__timeoutMs';

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

interface InstanceOwner {
  ownerAgent?: string;
  ownerInstanceKey?: string;
  createdAt: string;
  cwd?: string;
}

export class Router {
  readonly pending = new PendingRequests();
  private readonly owners = new Map<string, InstanceOwner>();

  constructor(private readonly deps: RouterDeps) {}

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

  ownerOf(agent: string, instanceKey: string): InstanceOwner | undefined {
    return this.owners.get(callNode(agent, instanceKey));
  }

  // ── events from children ────────────────────────────────────────────────

  private handleEvent(to: string, event: AgentEvent, from: ManagedProcess): void {
    if (isControlEvent(event)) {
      this.handleControl(event, from);
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
      const timeout = event.metadata?.[TIMEOUT_KEY];
      this.addPending(event.replyTo.correlationId, requester, target, instanceKey, event, typeof timeout === 'number' ? timeout : undefined);
    }
    if (!this.owners.has(callNode(target, instanceKey))) {
      this.owners.set(callNode(target, instanceKey), { ownerAgent: from.name, ownerInstanceKey: from.instanceKey, createdAt: new Date().toISOString() });
    }
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
      this.addPending(event.replyTo.correlationId, requester, target.agent, target.instanceKey, routed, undefined);
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

  // ── control events ──────────────────────────────────────────────────────

  private handleControl(event: AgentEvent, from: ManagedProcess): void {
    const meta = event.metadata ?? {};
    switch (event.type) {
      case CONTROL.ready: {
        from.ready = true;
        from.status = 'idle';
        const flushed = from.kind === 'agent' ? this.deps.delivery.flush(from) : 0;
        if (flushed > 0) from.status = 'processing';
        this.deps.logger.info({ process: from.key, pid: from.pid, redelivered: flushed }, 'process ready');
        return;
      }
      case CONTROL.turnStarted:
        if (typeof meta.eventId === 'string') this.deps.delivery.markStarted(from, meta.eventId);
        from.status = 'processing';
        return;
      case CONTROL.turnCompleted:
        if (typeof meta.eventId === 'string') this.deps.delivery.ack(from, meta.eventId);
        from.consecutiveCrashes = 0; // a completed turn resets the crash count (SPEC.md §2.2)
        if (from.status !== 'draining') from.status = this.deps.delivery.pendingCount(from.name, from.instanceKey) > 0 ? 'processing' : 'idle';
        return;
      case CONTROL.observe: {
        const result = validateRuntimeEvent(meta.event);
        if (!result.ok) {
          this.deps.logger.warn({ process: from.key, problems: result.problems }, 'dropped a malformed runtime event');
          return;
        }
        this.deps.metrics.observe(result.value);
        this.deps.runtimeEvents.publish(result.value);
        return;
      }
      case CONTROL.spawn:
        this.controlSpawn(event, from);
        return;
      case CONTROL.list:
        this.controlReply(from, event, { status: 'ok', output: '', result: { agents: this.listInstances(from, meta.includeAll === true) } });
        return;
      case CONTROL.catalog: {
        const swarm = this.deps.swarm();
        const result: JsonObject = {
          swarmName: swarm.name,
          entryAgent: swarm.entryAgent,
          selfAgent: from.name,
          availableAgents: swarm.agents,
          callableAgents: swarm.agents.filter((a) => a !== from.name),
        };
        this.controlReply(from, event, { status: 'ok', output: '', result });
        return;
      }
      case CONTROL.approvalRequest: {
        const timeoutMs = typeof meta.timeoutMs === 'number' && meta.timeoutMs > 0 ? meta.timeoutMs : 300_000;
        this.deps.approvals.open(
          {
            agent: from.name,
            instanceKey: from.instanceKey,
            processKey: from.key,
            toolName: typeof meta.toolName === 'string' ? meta.toolName : '',
            toolCallId: typeof meta.toolCallId === 'string' ? meta.toolCallId : '',
            args: isJsonObject(meta.args) ? meta.args : {},
            reason: typeof meta.reason === 'string' ? meta.reason : '',
          },
          timeoutMs,
          (outcome) => this.controlReply(from, event, { status: 'ok', output: '', result: outcome }),
        );
        return;
      }
      case CONTROL.approvalDecision: {
        const id = typeof meta.id === 'string' ? meta.id : '';
        const decided = this.deps.approvals.decide(id, {
          approved: meta.approved === true,
          scope: meta.scope === 'session' ? 'session' : 'once',
          decidedBy: from.kind === 'connector' ? from.name : 'agent',
          reason: typeof meta.reason === 'string' ? meta.reason : '',
        });
        if (!decided) this.deps.logger.info({ approvalId: id, from: from.key }, 'decision for an approval that is no longer pending');
        return;
      }
      case CONTROL.restart:
        this.deps.onRestartRequested(from, typeof meta.reason === 'string' ? meta.reason : 'requested by the agent');
        return;
      case CONTROL.connectorStarted:
        from.ready = true;
        from.status = 'idle';
        this.deps.logger.info({ process: from.key, pid: from.pid }, 'connector started');
        return;
      case CONTROL.connectorFailed:
        this.deps.logger.error({ process: from.key, error: meta.message }, 'connector failed to start');
        return;
      default:
        this.deps.logger.warn({ process: from.key, type: event.type }, 'unknown control event; dropped');
    }
  }

  private controlSpawn(event: AgentEvent, from: ManagedProcess): void {
    const meta = event.metadata ?? {};
    const target = typeof meta.target === 'string' ? meta.target : '';
    const instanceKey = typeof meta.instanceKey === 'string' && meta.instanceKey !== '' ? meta.instanceKey : from.instanceKey;
    if (!this.isKnownAgent(target)) {
      this.controlReply(from, event, errorOutcome('AGENT_NOT_FOUND', `agent '${target}' is not part of swarm '${this.deps.swarm().name}'`));
      return;
    }
    const existed = this.deps.supervisor.get('agent', target, instanceKey)?.alive === true;
    const node = callNode(target, instanceKey);
    if (!this.owners.has(node)) {
      this.owners.set(node, {
        ownerAgent: from.name,
        ownerInstanceKey: from.instanceKey,
        createdAt: new Date().toISOString(),
        ...(typeof meta.cwd === 'string' ? { cwd: meta.cwd } : {}),
      });
    }
    this.deps.supervisor.ensure('agent', target, instanceKey);
    const result: JsonObject = { target, instanceKey, spawned: !existed };
    if (typeof meta.cwd === 'string') result.cwd = meta.cwd;
    this.controlReply(from, event, { status: 'ok', output: '', result });
  }

  private listInstances(from: ManagedProcess, includeAll: boolean): JsonObject[] {
    const rows: JsonObject[] = [];
    for (const proc of this.deps.supervisor.list()) {
      if (proc.kind !== 'agent') continue;
      const owner = this.owners.get(callNode(proc.name, proc.instanceKey));
      const mine = owner?.ownerAgent === from.name && owner.ownerInstanceKey === from.instanceKey;
      if (!includeAll && !mine) continue;
      const row: JsonObject = { target: proc.name, instanceKey: proc.instanceKey, status: proc.status, createdAt: owner?.createdAt ?? proc.startedAt ?? '' };
      if (owner?.ownerAgent) row.ownerAgent = owner.ownerAgent;
      if (owner?.ownerInstanceKey) row.ownerInstanceKey = owner.ownerInstanceKey;
      if (owner?.cwd) row.cwd = owner.cwd;
      rows.push(row);
    }
    return rows;
  }

  private controlReply(to: ManagedProcess, request: AgentEvent, outcome: ReplyOutcome): void {
    if (!request.replyTo) return;
    to.send({
      type: 'event',
      from: ORCHESTRATOR,
      to: to.name,
      payload: makeReplyEvent(request.replyTo.correlationId, { kind: 'agent', name: ORCHESTRATOR }, outcome, CONTROL.response),
    });
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
    for (const request of this.pending.forRequestEvent(event.id)) {
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
    const proc = this.deps.supervisor.list().find((p) => p.key === requester.key);
    if (!proc || proc.incarnation !== requester.incarnation || !proc.alive) {
      this.deps.logger.info({ correlationId, requester: requester.key, traceId: outcome.traceId }, 'requester is gone; reply dropped');
      return;
    }
    const payload = original ?? makeReplyEvent(correlationId, { kind: 'agent', name: ORCHESTRATOR }, outcome);
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
        payload: makeEvent(CONTROL.error, { kind: 'agent', name: ORCHESTRATOR }, { metadata: { code, message, eventId: event.id } }),
      });
      return;
    }
    from.send({
      type: 'event',
      from: ORCHESTRATOR,
      to: from.name,
      payload: makeReplyEvent(event.replyTo.correlationId, { kind: 'agent', name: ORCHESTRATOR }, errorOutcome(code, message, event.traceId)),
    });
  }
}
