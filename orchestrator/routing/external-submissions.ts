/**
 * Events from outside the swarm — the HTTP API, the CLI, the one-shot runner — entering the router
 * (ARCHITECTURE §3): a key seen before answers with its first event (issue 10), the event goes to
 * the ledger before the inbox (a retry after a crash finds it), and the caller learns of the
 * acceptance once it is on disk — or, when the disk refused it, the event is taken back and the
 * refusal thrown (507), never run later.
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { makeEvent, ORCHESTRATOR } from '../../shared/ipc/control-events.ts';
import { type ReplyOutcome, errorOutcome, failureOutcome } from '../../shared/ipc/reply-events.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../shared/ipc/request-metadata.ts';
import { errorShape, GoondanError } from '../../shared/errors/index.ts';
import { validateInstanceKey } from '../../shared/instance-key.ts';
import { newId, newTraceId } from '../../shared/ids.ts';
import type { AgentEvent, EventSource } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { within } from '../../shared/within.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { EventLedger } from '../delivery/event-ledger.ts';
import { targetOf } from './default-target.ts';
import type { PendingRequests, Requester } from './pending-requests.ts';
import { assertSameRequest, inputDigest } from './request-digest.ts';

export interface ExternalSubmission {
  agent: string;
  /** Absent: DEFAULT_INSTANCE_KEY (default-target.ts). */
  instanceKey?: string;
  input: string;
  source: EventSource;
  wait: boolean;
  timeoutMs?: number;
  traceId?: string;
  metadata?: JsonObject;
  /** Issue 10: the same key within 24 h answers with the event it created, never a second turn. */
  idempotencyKey?: string;
  /** Cluster mode: the id the key was claimed with for the cluster (keyed-submission.ts). */
  eventId?: string;
  /** The caller follows the trace's runtime events (cluster mode relays them from other nodes). */
  stream?: boolean;
}

export interface Submitted {
  eventId: string;
  traceId: string;
  instanceKey: string;
  reply?: Promise<ReplyOutcome>;
  /** The idempotency key was seen before: this is the original event (and its reply). */
  replayed?: boolean;
  /** Cluster mode: settles when the cluster stored the event (a wait=false caller is told only then). */
  accepted?: Promise<void>;
  /** wait=true: settles once the event is on disk (`reply` waits for it; a streamed answer starts only after it). */
  stored?: Promise<void>;
}

/** What a submission needs of the router. */
export interface SubmissionPorts {
  ledger: EventLedger | undefined;
  delivery: Delivery;
  /** Cluster mode: acceptance is the cluster's (a promise from `dispatch`), not this disk's. */
  clustered: boolean;
  pending: PendingRequests;
  /** Into the instance's inbox, counted and shown as external; cluster mode's promise of acceptance. */
  dispatch(target: AgentId, event: AgentEvent, from: string, kind: 'request' | 'send'): Promise<void> | undefined;
  addPending(correlationId: string, requester: Requester, target: AgentId, event: AgentEvent, timeoutMs: number | undefined): void;
}

/** One event from outside into the swarm, optionally awaiting the reply. */
export function submitExternal(ports: SubmissionPorts, submission: ExternalSubmission): Submitted {
  const { ledger } = ports;
  const known = submission.idempotencyKey !== undefined ? ledger?.findByKey(submission.idempotencyKey) : undefined;
  if (known && ledger && submission.idempotencyKey !== undefined) {
    assertSameRequest(submission.idempotencyKey, known, { ...targetOf(submission.agent, submission.instanceKey), input: submission.input });
    const replayed: Submitted = { eventId: known.eventId, traceId: known.traceId, instanceKey: known.instanceKey, replayed: true };
    if (submission.wait) replayed.reply = withDeadline(ledger.outcome(known.eventId), submission.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, known.traceId);
    return replayed;
  }
  const target = targetOf(submission.agent, submission.instanceKey);
  const badKey = validateInstanceKey(target.instanceKey);
  // Ingress checks keys first (HTTP answers 400); reaching here with a bad one is a defect of the caller.
  if (badKey) throw new GoondanError('INVALID_REQUEST', 'user', badKey);
  // A retry of what the cluster refused (503) goes out under the refused event's id: if a refused
  // attempt landed after all, JetStream's msgID dedupe keeps it to one run.
  const refused = submission.idempotencyKey !== undefined ? ledger?.refusedUnder(submission.idempotencyKey) : undefined;
  const again = refused && refused.agent === target.agent && refused.instanceKey === target.instanceKey ? refused : undefined;
  const traceId = again?.traceId ?? submission.traceId ?? newTraceId();
  const correlationId = submission.wait ? newId('corr') : undefined;
  const event = makeEvent('api.input', submission.source, {
    input: submission.input,
    instanceKey: target.instanceKey,
    traceId,
    ...(submission.metadata ? { metadata: submission.metadata } : {}),
    ...(correlationId ? { replyTo: { target: ORCHESTRATOR, correlationId } } : {}),
  });
  const id = again?.eventId ?? submission.eventId;
  if (id !== undefined) event.id = id;
  // In the ledger before the inbox: a retry with the key after a crash finds this event.
  ledger?.accepted({
    eventId: event.id,
    agent: target.agent,
    instanceKey: target.instanceKey,
    traceId,
    ...(submission.idempotencyKey !== undefined ? { idempotencyKey: submission.idempotencyKey, inputDigest: inputDigest(submission.input) } : {}),
  });
  if (!correlationId) {
    const accepted = ports.dispatch(target, event, submission.source.name, 'send');
    ports.delivery.sync(); // the caller is told the event was accepted: it is on disk
    refuseUnwritten(ports, target, event);
    return { eventId: event.id, traceId, instanceKey: target.instanceKey, ...(accepted ? { accepted } : {}) };
  }
  const reply = new Promise<ReplyOutcome>((resolve) => {
    ports.addPending(correlationId, { kind: 'local', resolve }, target, event, submission.timeoutMs);
  });
  const accepted = ports.dispatch(target, event, submission.source.name, 'request');
  // This caller learns of the acceptance with the reply: the records reach the disk off the loop
  // meanwhile (a new instance's process starts, the turn runs), and the reply waits for them.
  const stored = ports.delivery.settle();
  refuseUnwritten(ports, target, event, correlationId);
  const settled = Promise.all([reply, stored]).then(([outcome]) => outcome);
  return { eventId: event.id, traceId, instanceKey: target.instanceKey, reply: settled, stored, ...(accepted ? { accepted } : {}) };
}

/** A submission whose inbox record the disk refused is not accepted: taken back, and the refusal thrown to its caller. */
function refuseUnwritten(ports: SubmissionPorts, target: AgentId, event: AgentEvent, correlationId?: string): void {
  if (ports.clustered) return;
  const refusal = ports.delivery.takeBackUnwritten(target, event.id);
  if (refusal === undefined) return;
  if (correlationId !== undefined) ports.pending.take(correlationId);
  ports.ledger?.refused(event.id, failureOutcome(errorShape('E_HTTP_NO_SPACE', 'system', `event ${event.id} was not accepted: the disk of the state root refused it`), event.traceId));
  throw refusal;
}

/** An outcome that does not arrive in time resolves as AGENT_REQUEST_TIMEOUT (the caller may ask again). */
function withDeadline(outcome: Promise<ReplyOutcome>, timeoutMs: number, traceId: string): Promise<ReplyOutcome> {
  return within(outcome, timeoutMs, () =>
    errorOutcome('AGENT_REQUEST_TIMEOUT', `no reply within ${timeoutMs} ms; the event is still accepted — ask again with the same Idempotency-Key or GET /v1/events/{eventId}`, traceId),
  );
}
