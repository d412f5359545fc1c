/**
 * An event a connector emits: routed by its Connection's ingress rules (ingress.ts) to one instance,
 * with a trace of its own (SPEC.md §6), and run once per provider delivery id — a redelivery under
 * the same id (its idempotency key) is not run again, and a waiting connector gets the first
 * event's reply. In cluster mode the key holds for the whole cluster: a redelivery may reach
 * another node than the first delivery did (keyed-submission.ts).
 */
import type { ErrorShape } from '../../shared/errors/index.ts';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { makeReplyEvent, type ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, requestTimeoutOf } from '../../shared/ipc/request-metadata.ts';
import { newTraceId } from '../../shared/ids.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ConnectionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { EventLedger } from '../delivery/event-ledger.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import { connectorIdempotencyKey, routeConnectorEvent } from './ingress.ts';
import type { ClusterRouting } from './router.ts';

export interface ConnectorEventsDeps {
  connections(): readonly ConnectionPlan[];
  swarm(): SwarmPlan;
  ledger?: EventLedger;
  cluster?: ClusterRouting;
  logger: RootLogger;
  /** Not routable: the connector learns why. */
  refuse(from: ManagedProcess, event: AgentEvent, error: ErrorShape): void;
  /** Accepted: into the ledger and on to `target` (router.ts). */
  accept(from: ManagedProcess, event: AgentEvent, target: AgentId, delivered: AgentEvent & { traceId: string }, idempotencyKey: string | undefined): void;
}

export class ConnectorEvents {
  constructor(private readonly deps: ConnectorEventsDeps) {}

  route(event: AgentEvent, from: ManagedProcess): void {
    const rules = this.deps.connections().find((c) => c.name === from.name)?.rules ?? [];
    const route = routeConnectorEvent(event, from.name, rules, this.deps.swarm());
    if (!route.ok) {
      if (route.log) this.deps.logger[route.log.level]({ connection: from.name, eventId: event.id, ...route.log.fields }, route.log.message);
      if (route.tell === 'always' || event.replyTo) this.deps.refuse(from, event, route.error);
      return;
    }
    const { target } = route;
    const traceId = event.traceId ?? newTraceId();
    const delivered = { ...event, instanceKey: target.instanceKey, traceId };
    const idempotencyKey = connectorIdempotencyKey(event, from.name);
    const known = idempotencyKey !== undefined ? this.deps.ledger?.findByKey(idempotencyKey) : undefined;
    if (known) {
      this.replayAcceptedHere(from, event, known.eventId);
      return;
    }
    const { cluster } = this.deps;
    if (idempotencyKey === undefined || !cluster) {
      this.deps.accept(from, event, target, delivered, idempotencyKey);
      return;
    }
    const candidate = { eventId: delivered.id, agent: target.agent, instanceKey: target.instanceKey, traceId };
    void cluster.admitConnectorEvent(idempotencyKey, candidate, requestTimeoutOf(event) ?? DEFAULT_REQUEST_TIMEOUT_MS).then((admission) => {
      // Two deliveries at once on this node: the one admitted second finds the first accepted by now.
      const acceptedMeanwhile = this.deps.ledger?.findByKey(idempotencyKey);
      if (acceptedMeanwhile) this.replayAcceptedHere(from, event, acceptedMeanwhile.eventId);
      else if (admission.run) this.deps.accept(from, event, target, { ...delivered, id: admission.eventId }, idempotencyKey);
      else this.replay(from, event, admission.eventId, `node ${admission.node}`, admission.outcome);
    });
  }

  private replayAcceptedHere(from: ManagedProcess, event: AgentEvent, original: string): void {
    this.replay(from, event, original, 'this node', this.deps.ledger?.outcome(original));
  }

  /** Seen before under its idempotency key: not run again; a waiting connector gets the first event's reply. */
  private replay(from: ManagedProcess, event: AgentEvent, original: string, where: string, outcome: Promise<ReplyOutcome> | undefined): void {
    this.deps.logger.info({ connection: from.name, eventId: event.id, original, acceptedBy: where }, 'connector event already accepted under its idempotency key; not run again');
    if (!event.replyTo || !outcome) return;
    const { correlationId } = event.replyTo;
    void outcome.then((settled) => from.send({ type: 'event', from: ORCHESTRATOR, to: from.name, payload: makeReplyEvent(correlationId, ORCHESTRATOR_SOURCE, settled) }));
  }
}
