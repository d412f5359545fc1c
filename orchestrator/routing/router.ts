/**
 * Routes every message the orchestrator receives (ARCHITECTURE §2): requests and sends by target
 * agent + instanceKey (auto-spawn), responses by correlationId to the exact requester, control
 * events (`runtime.*`) to the ControlHandler, connector events through the Connection's ingress rules.
 * The router knows nothing about turns; it only moves events and keeps the pending table. It is
 * the one place where a missing instanceKey gets its default.
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, inReplyToOf, isControlEvent, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { controlEvent } from '../../shared/ipc/control-protocol.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { type ReplyOutcome, errorOutcome, failureOutcome, makeReplyEvent, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, isAsyncRequest, requestTimeoutOf, wantsStreamedReply } from '../../shared/ipc/request-metadata.ts';
import { type ErrorShape, runtimeError, type RuntimeErrorCode } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ConnectionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { EventLedger } from '../delivery/event-ledger.ts';
import { ForeignOutcomes } from './foreign-outcomes.ts';
import type { ConnectorAdmission } from '../cluster/keyed-submission.ts';
import type { Metrics } from '../http/metrics.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import { RequesterReplies, requesterName } from './requester-replies.ts';
import type { ModelCalls } from '../usage/model-calls.ts';
import type { RequestSpans } from '../telemetry/request-spans.ts';
import { ControlHandler } from './control-handler.ts';
import { targetOf } from './default-target.ts';
import { InstanceOwners } from './instance-owners.ts';
import { AgentCallChecks } from './agent-call-checks.ts';
import { ReplyRelease } from './reply-release.ts';
import { ConnectorEvents } from './connector-events.ts';
import { type PendingRequest, PendingRequests, type Requester } from './pending-requests.ts';
import { ReplyDeltaRelay } from './reply-delta-relay.ts';
import { UnsyncedReplies } from './unsynced-replies.ts';
import { type ExternalSubmission, type SubmissionPorts, type Submitted, submitExternal } from './external-submissions.ts';

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

/**
 * Cluster mode (issue 15): events go to their instance's owner through JetStream, whichever node
 * that is (this one included); replies to callers on other nodes go back over NATS.
 */
export interface ClusterRouting {
  readonly nodeId: string;
  /** Resolves once the event is durably accepted by the cluster; rejects when it is not. */
  publish(target: AgentId, event: AgentEvent, from: string, kind: 'request' | 'send'): Promise<void>;
  /** To the node whose caller waits, until `until` (the caller's deadline, ms since the epoch). */
  sendReply(node: string, event: AgentEvent, until: number): void;
  /**
   * Resolves true once the state of `callee`'s turn for `eventId` is stored in the cluster, false
   * when it never will be from this node (fenced by another node's write, the partition lost).
   */
  replyStored(callee: AgentId, eventId: string): Promise<boolean>;
  /** A connector's event under its idempotency key, claimed for the whole cluster (keyed-submission.ts). */
  admitConnectorEvent(key: string, candidate: { eventId: string; agent: string; instanceKey: string; traceId: string }, waitMs: number): Promise<ConnectorAdmission>;
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
  /** Model-call accounting and admission (usage ledger, budgets, rate limits). */
  modelCalls: ModelCalls;
  /** OpenTelemetry spans of inter-agent calls (only when spans are exported). */
  requestSpans?: RequestSpans;
  /** States, replies and idempotency keys of events accepted from outside (issue 10). */
  ledger?: EventLedger;
  cluster?: ClusterRouting;
  /** Cluster mode: `runtime.state.sync` from an agent. */
  syncState?(proc: ManagedProcess): Promise<void>;
  /** Cluster mode: `runtime.connection.exclusive` from a connector. */
  exclusiveConnection?(proc: ManagedProcess): Promise<void>;
  /** fsyncs an instance's records from the daemon (a callee gone before its ack: unsynced-replies.ts). */
  syncInstanceRecords?(id: AgentId): void;
}

export class Router {
  readonly pending = new PendingRequests();
  private readonly owners = new InstanceOwners();
  private readonly callChecks: AgentCallChecks;
  private readonly releases: ReplyRelease;
  private readonly control: ControlHandler;
  private readonly replyDeltas: ReplyDeltaRelay;
  private readonly replies: RequesterReplies;
  private readonly unsynced: UnsyncedReplies;
  /** Cluster mode: outcomes of events this node runs for the node that accepted them. */
  private readonly foreign: ForeignOutcomes | undefined;
  private readonly connectorEvents: ConnectorEvents;
  private readonly submissions: SubmissionPorts;

  constructor(private readonly deps: RouterDeps) {
    this.callChecks = new AgentCallChecks({ swarm: () => deps.swarm(), supervisor: deps.supervisor, clustered: deps.cluster !== undefined });
    this.releases = new ReplyRelease({
      cluster: deps.cluster,
      logger: deps.logger,
      pending: this.pending,
      answer: (request, outcome, event) => this.answer(request, outcome, event),
      expired: (request) => this.expired(request),
    });
    this.replyDeltas = new ReplyDeltaRelay(deps.runtimeEvents);
    const { cluster } = deps;
    this.replies = new RequesterReplies({
      supervisor: deps.supervisor,
      logger: deps.logger,
      ...(deps.requestSpans ? { requestSpans: deps.requestSpans } : {}),
      isKnownAgent: (name) => this.isKnownAgent(name),
      ...(cluster ? { sendToNode: (node: string, event: AgentEvent, until: number) => cluster.sendReply(node, event, until) } : {}),
      keep: (target, event, from) => void this.toInstance(target, event, from, 'send'),
      onAnswered: (correlationId) => this.replyDeltas.end(correlationId),
    });
    this.unsynced = new UnsyncedReplies({
      answerAgentsEarly: cluster === undefined,
      supervisor: deps.supervisor,
      logger: deps.logger,
      answer: (request, outcome, event, callee) => this.release(request, outcome, event, callee),
      syncInstanceRecords: (id) => deps.syncInstanceRecords?.(id),
    });
    this.connectorEvents = new ConnectorEvents({
      connections: () => deps.connections(),
      swarm: () => deps.swarm(),
      ...(deps.ledger ? { ledger: deps.ledger } : {}),
      ...(cluster ? { cluster } : {}),
      logger: deps.logger,
      refuse: (from, event, error) => this.refuse(from, event, error),
      accept: (from, event, target, delivered, key) => this.acceptConnectorEvent(from, event, target, delivered, key),
    });
    this.foreign = cluster ? new ForeignOutcomes({ nodeId: cluster.nodeId, send: (node, event, until) => cluster.sendReply(node, event, until), ...(deps.ledger ? { ledger: deps.ledger } : {}) }) : undefined;
    this.control = new ControlHandler({
      ...deps,
      onEventAnswered: (proc, eventId, reply) =>
        this.releases.outcome(proc.id, eventId, () => {
          deps.ledger?.done(eventId, reply);
          this.foreign?.answered(eventId, reply);
        }),
      onTurnSynced: (proc, eventId) => this.unsynced.synced(proc.key, eventId),
      owners: this.owners,
      isKnownAgent: (name) => this.isKnownAgent(name),
      ensure: (target) => this.deps.supervisor.ensure('agent', target.agent, target.instanceKey),
    });
    this.submissions = {
      ledger: deps.ledger,
      delivery: deps.delivery,
      clustered: cluster !== undefined,
      pending: this.pending,
      dispatch: (target, event, from, kind) => this.dispatch(target, event, from, kind, true),
      addPending: (correlationId, requester, target, event, timeoutMs) => this.addPending(correlationId, requester, target, event, timeoutMs),
    };
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

  /** HTTP, CLI and the one-shot runner: one event into the swarm, optionally awaiting the reply (external-submissions.ts). */
  submit(submission: ExternalSubmission): Submitted {
    return submitExternal(this.submissions, submission);
  }

  isKnownAgent(name: string): boolean {
    return this.deps.swarm().agents.includes(name);
  }

  /** Fails every request waiting on a dead-lettered event. */
  failRequestsFor(eventId: string, code: RuntimeErrorCode, message: string): void {
    this.fail(this.pending.forRequestEvent(eventId), runtimeError(code, message));
  }

  /**
   * Answers every request waiting on `target` with `error` at once, instead of letting callers wait
   * out their timeout. With `deadLetter`, the requests' events are given up too (the caller was
   * told they failed); without it they stay queued for the instance's next start.
   */
  failRequestsTargeting(target: AgentId, error: ErrorShape, options: { deadLetter: boolean }): void {
    const requests = this.pending.forTarget(agentKey(target));
    this.fail(requests, error);
    if (!options.deadLetter) return;
    // The error as the caller got it: a retry under its key, and GET /v1/events/{id}, tell the same.
    for (const request of requests) this.deps.delivery.deadLetter(target, request.requestEventId, `${error.code}: ${error.message}`, error);
  }

  /** Daemon shutdown: waiters — HTTP, one-shot, connector, agent — on the chosen targets get DAEMON_STOPPING now. */
  failPendingWhere(targetKeyMatches: (targetKey: string) => boolean, message: string): void {
    this.fail(
      this.pending.all().filter((request) => targetKeyMatches(request.targetKey)),
      runtimeError('DAEMON_STOPPING', message),
    );
  }

  // ── events from children ────────────────────────────────────────────────

  private handleEvent(to: string, event: AgentEvent, from: ManagedProcess): void {
    if (isControlEvent(event)) {
      this.control.handle(event, from);
      return;
    }
    const correlationId = inReplyToOf(event);
    if (correlationId) {
      this.routeResponse(correlationId, event, from.name, from.key, from);
      return;
    }
    if (from.kind === 'connector') {
      this.connectorEvents.route(event, from);
      return;
    }
    this.routeAgentCall(to, event, from);
  }

  private routeAgentCall(targetAgent: string, event: AgentEvent, from: ManagedProcess): void {
    const target = targetOf(targetAgent, event.instanceKey, from.id);
    const kind = event.replyTo ? 'request' : 'send';
    // The agent checks scope and hops too; here they are the guarantee, whatever the process sent.
    const refusal = this.callChecks.refusal(from, target, event);
    if (refusal) {
      this.refuse(from, event, refusal);
      return;
    }
    if (event.replyTo) {
      this.addPending(event.replyTo.correlationId, processRequester(from, isAsyncRequest(event)), target, event, requestTimeoutOf(event));
    }
    this.owners.record(target, { ownerAgent: from.name, ownerInstanceKey: from.instanceKey });
    const spanId = event.traceId === undefined ? undefined : this.deps.requestSpans?.begin({
      traceId: event.traceId,
      ...(event.parentSpanId ? { parentSpanId: event.parentSpanId } : {}),
      caller: from.name,
      callerInstanceKey: from.instanceKey,
      target: target.agent,
      targetInstanceKey: target.instanceKey,
      ...(event.replyTo ? { correlationId: event.replyTo.correlationId } : {}),
    });
    // With spans exported, the callee's turn hangs under the request span (caller tool → request → callee turn).
    this.dispatch(target, { ...event, instanceKey: target.instanceKey, ...(spanId ? { parentSpanId: spanId } : {}) }, from.name, kind, false);
  }

  /** A connector's event, routed and admitted by connector-events.ts: into the ledger and on to its instance. */
  private acceptConnectorEvent(from: ManagedProcess, event: AgentEvent, target: AgentId, delivered: AgentEvent & { traceId: string }, idempotencyKey: string | undefined): void {
    const { traceId } = delivered;
    this.deps.ledger?.accepted({ eventId: delivered.id, agent: target.agent, instanceKey: target.instanceKey, traceId, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });
    if (event.replyTo) {
      this.addPending(event.replyTo.correlationId, processRequester(from, false), target, delivered, requestTimeoutOf(event));
      if (wantsStreamedReply(event)) this.replyDeltas.follow(event.replyTo.correlationId, traceId, target, from);
    }
    this.dispatch(target, delivered, from.name, event.replyTo ? 'request' : 'send', true);
  }

  /** `callee`: the local process that answered (absent for a reply relayed from another node). */
  private routeResponse(correlationId: string, event: AgentEvent, fromName: string, fromKey: string, callee?: ManagedProcess): void {
    const request = this.pending.take(correlationId);
    if (!request) {
      // A notice to the node that accepted the event: held like the reply would have been.
      const hold = (eventId: string, notify: () => void) => (callee ? this.releases.outcome(callee.id, eventId, notify) : notify());
      if (this.foreign?.unclaimed(correlationId, replyOutcomeOf(event), hold)) return;
      this.deps.logger.debug({ correlationId, from: fromKey, traceId: event.traceId }, 'response for an unknown or expired request; dropped');
      return;
    }
    this.deps.metrics.eventsRouted.inc({ kind: 'response' });
    const outcome = replyOutcomeOf(event);
    const external = request.requester.kind !== 'process' || !this.isKnownAgent(request.requester.agent);
    this.deps.onExchange?.({
      kind: outcome.status === 'ok' ? 'response' : 'error',
      external,
      from: fromName,
      to: requesterName(request.requester),
      text: outcome.status === 'ok' ? outcome.output : `${outcome.error?.code ?? outcome.status}: ${outcome.error?.message ?? ''}`,
      ...(event.traceId ? { traceId: event.traceId } : {}),
    });
    if (outcome.unsynced && callee) {
      this.unsynced.route(request, callee, outcome, event);
      return;
    }
    this.release(request, outcome, event, callee?.id);
  }

  private release(request: PendingRequest, outcome: ReplyOutcome, event: AgentEvent, callee: AgentId | undefined): void {
    this.releases.release(request, outcome, event, callee);
  }

  /** A child exited: replies it answered before its turn was on disk, or waited on, are settled here. */
  processExited(proc: ManagedProcess): void {
    this.unsynced.exited(proc);
  }

  // ── shared mechanics ────────────────────────────────────────────────────

  /** To the instance, counted and shown in the exchange. */
  private dispatch(target: AgentId, event: AgentEvent, from: string, kind: 'request' | 'send', external: boolean): Promise<void> | undefined {
    this.deps.metrics.eventsRouted.inc({ kind });
    this.deps.logger.debug({ eventId: event.id, kind, from, to: agentKey(target), traceId: event.traceId, parentSpanId: event.parentSpanId }, 'event routed');
    this.deps.onExchange?.({ kind, from, to: target.agent, text: event.input ?? '', external, ...(event.traceId ? { traceId: event.traceId } : {}) });
    return this.toInstance(target, event, from, kind);
  }

  /** Into the instance's inbox: here, or in cluster mode its owner's (a promise of acceptance then). */
  private toInstance(target: AgentId, event: AgentEvent, from: string, kind: 'request' | 'send'): Promise<void> | undefined {
    const { cluster } = this.deps;
    if (!cluster) {
      this.deliverHere(target, event, from);
      return undefined;
    }
    const accepted = cluster.publish(target, event, from, kind);
    accepted.catch((error: unknown) => {
      this.deps.logger.error({ eventId: event.id, target: agentKey(target), err: error }, 'the cluster did not accept an event');
      const outcome = failureOutcome(runtimeError('CLUSTER_UNAVAILABLE', `the cluster did not accept the event for '${target.agent}': ${(error as Error).message}`), event.traceId);
      this.deps.ledger?.refused(event.id, outcome);
      const request = event.replyTo ? this.pending.take(event.replyTo.correlationId) : undefined;
      if (request) this.answer(request, outcome);
    });
    return accepted;
  }

  /**
   * Into this node's delivery for `target`. Cluster mode calls it for events pulled from an owned
   * partition; `origin` is the node whose caller waits for the reply.
   */
  deliverHere(target: AgentId, event: AgentEvent, from: string, origin?: string): void {
    const proc = this.deps.supervisor.ensure('agent', target.agent, target.instanceKey);
    // A redelivery of an event this node still holds unfinished is the same work, not new work.
    if (origin !== undefined && this.deps.delivery.holds(proc.id, event.id)) return;
    if (event.replyTo && origin !== undefined && origin !== this.deps.cluster?.nodeId) {
      this.addPending(event.replyTo.correlationId, { kind: 'remote', node: origin }, target, event, requestTimeoutOf(event));
    }
    if (origin !== undefined) this.foreign?.delivered(event, agentKey(target), origin);
    this.deps.delivery.deliver(proc, event, from);
    // An instance that cannot start answers at once with why (it is not retried by itself).
    if (proc.startFailure && event.replyTo) this.failRequestsTargeting(target, proc.startFailure, { deadLetter: true });
  }

  /** Cluster mode: `target` moved to another node, which answers its remote callers from now on. */
  dropRemoteWaiters(target: AgentId): void {
    for (const request of this.pending.forTarget(agentKey(target))) if (request.requester.kind === 'remote') this.pending.take(request.correlationId);
    this.foreign?.moved(agentKey(target));
  }

  /** An event given up (dead-lettered) here: cluster mode tells the node that accepted it. */
  eventDead(eventId: string, reason: string, error: ErrorShape): void {
    this.foreign?.dead(eventId, reason, error);
  }

  /** Cluster mode: a reply sent to this node for one of its waiting callers, or the outcome of one of its events. */
  receiveRemoteReply(event: AgentEvent): void {
    if (this.foreign?.record(event)) return;
    const correlationId = inReplyToOf(event);
    if (correlationId) this.routeResponse(correlationId, event, event.source.name, `remote/${event.source.name}`);
  }

  private addPending(correlationId: string, requester: Requester, target: AgentId, event: AgentEvent, timeoutMs: number | undefined): void {
    const timeout = timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : DEFAULT_REQUEST_TIMEOUT_MS;
    this.pending.add(
      {
        correlationId,
        requester,
        targetAgent: target.agent,
        targetKey: agentKey(target),
        requestEventId: event.id,
        ...(event.traceId ? { traceId: event.traceId } : {}),
        sentAt: Date.now(),
        deadline: Date.now() + timeout,
      },
      (request) => this.expired(request, timeout),
    );
  }

  private expired(request: PendingRequest, timeout = request.deadline - request.sentAt): void {
    // A caller on another node: its own node enforces the deadline; this entry only expires.
    if (request.requester.kind === 'remote') return;
    this.deps.logger.warn({ correlationId: request.correlationId, target: request.targetKey, timeoutMs: timeout, traceId: request.traceId }, 'request timed out');
    this.answer(request, errorOutcome('AGENT_REQUEST_TIMEOUT', `'${request.targetAgent}' did not answer within ${timeout} ms`, request.traceId));
  }

  private answer(request: PendingRequest, outcome: ReplyOutcome, original?: AgentEvent): void {
    this.replies.answer(request, outcome, original);
  }

  private fail(requests: PendingRequest[], error: ErrorShape): void {
    for (const request of requests) {
      this.pending.take(request.correlationId);
      this.answer(request, failureOutcome(error, request.traceId));
    }
  }

  /** Unknown target, cycle, no route: a structured error back to the sender (and no delivery). */
  private refuse(from: ManagedProcess, event: AgentEvent, error: ErrorShape): void {
    this.deps.logger.warn({ from: from.key, code: error.code, eventId: event.id, traceId: event.traceId }, error.message);
    this.deps.onExchange?.({ kind: 'error', from: ORCHESTRATOR, to: from.name, text: `${error.code}: ${error.message}`, external: from.kind === 'connector' });
    const payload = event.replyTo
      ? makeReplyEvent(event.replyTo.correlationId, ORCHESTRATOR_SOURCE, failureOutcome(error, event.traceId))
      : controlEvent('runtime.error', ORCHESTRATOR_SOURCE, { eventId: event.id, error });
    from.send({ type: 'event', from: ORCHESTRATOR, to: from.name, payload });
  }
}

/** The exact process incarnation that asked (its reply never reaches a successor by mistake). */
function processRequester(from: ManagedProcess, async: boolean): Requester {
  return { kind: 'process', key: from.key, agent: from.name, instanceKey: from.instanceKey, incarnation: from.incarnation, async };
}
