/**
 * Cluster mode: the outcome of an event accepted from outside by one node (whose ledger tracks it,
 * for `GET /v1/events/{id}` and retries under its idempotency key) that ran on another, the
 * instance's owner. The accepting node showed such an event `queued` for good, and a retry under
 * its key waited out its timeout: the outcome was only on the owner. Now every outcome that crosses
 * nodes names its event (SETTLED_EVENT_KEY), and the accepting node records it:
 * - a reply for a caller who waits carries the event's id (requester-replies.ts), also when the
 *   caller stopped waiting (its timeout: the 504 tells it to look the event up);
 * - an event nobody waits for (`wait: false`, a connector's send), or whose reply found no waiter on
 *   the owner either, or that was given up, gets a notice: a reply event to no one, delivered at
 *   least once as a reply is. A turn's notice leaves once the turn's state is stored in the
 *   cluster, never for a run whose write was fenced (reply-release.ts).
 */
import { inReplyToOf, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { failureOutcome, makeReplyEvent, type ReplyOutcome, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import type { ErrorShape } from '../../shared/errors/index.ts';
import { givenUpError } from '../delivery/event-ledger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { EventLedger } from '../delivery/event-ledger.ts';

/** On a reply or notice that crosses nodes: the id of the event it settles. */
export const SETTLED_EVENT_KEY = '__settledEvent';
/** On a notice of an event given up (dead-lettered): why. */
const DEAD_REASON_KEY = '__deadReason';
/** The correlation id of a notice: nobody waits for it. */
const NOTICE = '__notice';
/** Events remembered at most (the oldest go first): one whose owner changed never settles here. */
const MAX_TRACKED = 10_000;
/** How long a notice is sent again while the accepting node does not take it (kept for it meanwhile, for as long as it is away: cluster/outcome-delivery.ts). */
const NOTICE_PATIENCE_MS = 60_000;

export interface ForeignOutcomesDeps {
  nodeId: string;
  /** To another node, at least once until `until` (ms since the epoch). */
  send(node: string, event: AgentEvent, until: number): void;
  ledger?: EventLedger;
}

interface Origin {
  node: string;
  targetKey: string;
  /** A caller waits: its reply goes to `node` by this correlation id. */
  correlationId?: string;
}

export class ForeignOutcomes {
  private readonly origins = new Map<string, Origin>();
  private readonly byCorrelation = new Map<string, string>();

  constructor(private readonly deps: ForeignOutcomesDeps) {}

  /** An event pulled from an owned partition; `origin` accepted it. */
  delivered(event: AgentEvent, targetKey: string, origin: string): void {
    // Another agent's event is in nobody's ledger.
    if (origin === this.deps.nodeId || event.source.kind === 'agent') return;
    if (this.origins.size >= MAX_TRACKED) {
      const oldest = this.origins.keys().next().value;
      if (oldest !== undefined) this.forget(oldest);
    }
    const correlationId = event.replyTo?.correlationId;
    this.origins.set(event.id, { node: origin, targetKey, ...(correlationId !== undefined ? { correlationId } : {}) });
    if (correlationId !== undefined) this.byCorrelation.set(correlationId, event.id);
  }

  /** Its turn answered with `reply`; a waiting caller's reply has gone before this (or unclaimed() took it). */
  answered(eventId: string, reply: ReplyOutcome): void {
    if (this.origins.get(eventId)?.correlationId !== undefined) this.forget(eventId);
    else this.notify(eventId, reply);
  }

  /**
   * A reply nobody here waits for any more: true when it settles an event accepted elsewhere, which
   * is told when `release` says (once the turn is stored: reply-release.ts).
   */
  unclaimed(correlationId: string, outcome: ReplyOutcome, release: (eventId: string, notify: () => void) => void): boolean {
    const eventId = this.byCorrelation.get(correlationId);
    if (eventId === undefined) return false;
    release(eventId, () => this.notify(eventId, outcome));
    return true;
  }

  /** It was given up (dead-lettered). */
  dead(eventId: string, reason: string, error: ErrorShape): void {
    this.notify(eventId, failureOutcome(givenUpError(eventId, reason, error)), reason);
  }

  /** The target's events go to another node now, which remembers their origins itself. */
  moved(targetKey: string): void {
    for (const [eventId, origin] of this.origins) if (origin.targetKey === targetKey) this.forget(eventId);
  }

  /**
   * A reply or notice from another node: the outcome of the event it names goes into this node's
   * ledger. True for a notice, which has no waiter to go on to.
   */
  record(event: AgentEvent): boolean {
    const eventId = event.metadata?.[SETTLED_EVENT_KEY];
    if (typeof eventId === 'string') {
      const reason = event.metadata?.[DEAD_REASON_KEY];
      if (typeof reason === 'string') this.deps.ledger?.dead(eventId, reason, replyOutcomeOf(event).error);
      else this.deps.ledger?.done(eventId, replyOutcomeOf(event));
    }
    return inReplyToOf(event) === NOTICE;
  }

  private forget(eventId: string): void {
    const correlationId = this.origins.get(eventId)?.correlationId;
    if (correlationId !== undefined) this.byCorrelation.delete(correlationId);
    this.origins.delete(eventId);
  }

  private notify(eventId: string, outcome: ReplyOutcome, deadReason?: string): void {
    const origin = this.origins.get(eventId);
    if (!origin) return;
    this.forget(eventId);
    this.deps.send(origin.node, outcomeNotice(eventId, outcome, deadReason), Date.now() + NOTICE_PATIENCE_MS);
  }
}

/** The notice of `eventId`'s outcome (given up, with `deadReason`), as the accepting node records it (record()). */
export function outcomeNotice(eventId: string, outcome: ReplyOutcome, deadReason?: string): AgentEvent {
  const notice = makeReplyEvent(NOTICE, ORCHESTRATOR_SOURCE, outcome);
  notice.metadata = { ...notice.metadata, [SETTLED_EVENT_KEY]: eventId, ...(deadReason !== undefined ? { [DEAD_REASON_KEY]: deadReason } : {}) };
  return notice;
}
