/**
 * Cluster mode: an event submitted from outside under an `Idempotency-Key` this node's ledger does
 * not know (idempotency-claims.ts). The key is claimed for the cluster first:
 * - claimed here (now or before): the event is submitted here, under the claimed id;
 * - claimed by another node: answered from that node's ledger — the node on its disk now, whatever its
 *   id (idempotency-claims.ts) — (its reply, or 202 for `wait: false`),
 *   marked replayed; if that node no longer knows the event (refused there), this node takes the
 *   claim over and submits it under the same id, which JetStream stores once;
 * - NATS does not answer: 503, nothing submitted (a second run is worse);
 * - the accepting node does not answer: 503 saying the event's outcome is unknown (it was accepted),
 *   not that the cluster did not accept it.
 * A connector's event under its delivery id (a webhook redelivered to another node) is admitted the
 * same way (admitConnectorEvent), except that it runs when the key cannot be claimed: the provider
 * has been told it arrived, so not running it would lose it.
 */
import { GoondanError } from '../../shared/errors/index.ts';
import { newId, newTraceId } from '../../shared/ids.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../shared/ipc/request-metadata.ts';
import { errorOutcome, type ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { EventLedger } from '../delivery/event-ledger.ts';
import { targetOf } from '../routing/default-target.ts';
import { assertSameRequest, inputDigest } from '../routing/request-digest.ts';
import type { ExternalSubmission, Submitted } from '../routing/external-submissions.ts';
import type { IdempotencyClaims, KeyClaim } from './idempotency-claims.ts';

export interface KeyedSubmissionDeps {
  claims: IdempotencyClaims;
  ledger: EventLedger;
  nodeId: string;
  /** This node's own submission path (router.submit). */
  submit(submission: ExternalSubmission): Submitted;
  /** An event refused here, never submitted (GET /v1/events/{id} says 404 for it, not "unknown"). */
  refused?(eventId: string): void;
}

export async function submitKeyed(deps: KeyedSubmissionDeps, submission: ExternalSubmission, key: string): Promise<Submitted> {
  const { ledger } = deps;
  // Accepted here before (or being accepted): the ledger answers (and refuses another request under the key).
  if (ledger.findByKey(key)) return deps.submit(submission);
  const target = targetOf(submission.agent, submission.instanceKey);
  const refused = ledger.refusedUnder(key);
  const candidate: KeyClaim = {
    eventId: refused?.eventId ?? newId('evt'),
    node: deps.nodeId,
    agent: target.agent,
    instanceKey: target.instanceKey,
    traceId: refused?.traceId ?? submission.traceId ?? newTraceId(),
    inputDigest: inputDigest(submission.input),
  };
  const here = (claim: KeyClaim) => deps.submit({ ...submission, eventId: claim.eventId, traceId: claim.traceId });
  let result;
  try {
    result = await deps.claims.claim(key, candidate);
  } catch (error) {
    const reason = `the Idempotency-Key could not be claimed for the cluster: ${(error as Error).message}`;
    // Kept as refused: the retry under the key goes out under the id this 503 names, as after any refusal.
    const { node: _here, ...record } = candidate;
    ledger.accepted({ ...record, idempotencyKey: key });
    ledger.refused(candidate.eventId, errorOutcome('CLUSTER_UNAVAILABLE', reason, candidate.traceId));
    deps.refused?.(candidate.eventId);
    return notAccepted(candidate, reason);
  }
  if (result.kind === 'ours') return here(result.claim);

  const { claim } = result;
  assertSameRequest(key, claim, { ...target, input: submission.input });
  let remote;
  try {
    remote = await deps.claims.outcomeFrom(claim, submission.wait ? (submission.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) : 0);
  } catch (error) {
    // Accepted there, perhaps run and answered by now: not "not accepted", and nothing is sent again.
    throw new GoondanError(
      'CLUSTER_UNAVAILABLE',
      'system',
      `the event under this Idempotency-Key (${claim.eventId}) was accepted by node ${claim.node}, which does not answer (${(error as Error).message}): its outcome is unknown here`,
      {
        suggestion: `retry with the same Idempotency-Key shortly (node ${claim.node} may be restarting), or ask GET /v1/events/${claim.eventId}; do not send it under a new key`,
        details: { eventId: claim.eventId, node: claim.node },
      },
    );
  }
  if (!remote.known) {
    if (await deps.claims.takeOver(key, claim, result.revision).catch(() => false)) return here(claim);
    return notAccepted(claim, 'another node took the Idempotency-Key over at the same moment; retry');
  }
  const replayed: Submitted = { eventId: claim.eventId, traceId: claim.traceId, instanceKey: claim.instanceKey, replayed: true };
  if (!submission.wait) return replayed;
  const outcome =
    remote.outcome ?? errorOutcome('AGENT_REQUEST_TIMEOUT', `no reply within the wait; the event is still accepted (by node ${claim.node}) — ask again with the same Idempotency-Key`, claim.traceId);
  return { ...replayed, reply: Promise.resolve(outcome) };
}

/** Refused as the cluster refuses an event it cannot store (503 CLUSTER_UNAVAILABLE). */
function notAccepted(claim: Pick<KeyClaim, 'eventId' | 'traceId' | 'instanceKey'>, reason: string): Submitted {
  const accepted = Promise.reject(new Error(reason));
  // Read by the caller (api-server) once it has the submission; never unhandled meanwhile.
  accepted.catch(() => {});
  return { eventId: claim.eventId, traceId: claim.traceId, instanceKey: claim.instanceKey, accepted };
}

/** What becomes of a connector's keyed event: it runs here (under `eventId`), or another node had it. */
export type ConnectorAdmission = { run: true; eventId: string } | { run: false; node: string; eventId: string; outcome: Promise<ReplyOutcome> };

export async function admitConnectorEvent(deps: Pick<KeyedSubmissionDeps, 'claims' | 'nodeId'>, key: string, candidate: Omit<KeyClaim, 'node'>, waitMs: number): Promise<ConnectorAdmission> {
  let result;
  try {
    result = await deps.claims.claim(key, { ...candidate, node: deps.nodeId });
  } catch {
    return { run: true, eventId: candidate.eventId };
  }
  if (result.kind === 'ours') return { run: true, eventId: result.claim.eventId };
  const { claim } = result;
  const outcome = deps.claims.outcomeFrom(claim, waitMs).then(
    (remote) => remote.outcome ?? errorOutcome('AGENT_REQUEST_TIMEOUT', `no reply within the wait; the event is accepted by node ${claim.node}`, claim.traceId),
    (error: unknown) => errorOutcome('AGENT_REQUEST_TIMEOUT', `node ${claim.node}, which accepted the event, does not answer: ${(error as Error).message}`, claim.traceId),
  );
  return { run: false, node: claim.node, eventId: claim.eventId, outcome };
}
