/**
 * An event its instance's owner gave up without running it, because the instance was deleted
 * after the event was accepted (deletion-marks.ts), told to the node that accepted it: there, as
 * on one node for the events queued for an instance it deletes (instance-removal.ts), its record
 * says `dead` with INSTANCE_DELETED (GET /v1/events/{id}, a retry under its Idempotency-Key) and
 * whoever waits for it is told now. A core NATS request that node answers once it has recorded
 * it, sent again while no answer comes (NATS restarting, that node reconnecting) for a while, and
 * kept for that node from the first miss until it has it, however long it is away (outcome-delivery.ts).
 *
 * The error reply an owner sends a waiting caller's node for such an event is that event's notice
 * too (recordReply). The owner sends the notice and the reply apart, and each is sent again on its
 * own while unanswered: when the reply got there first, the ledger recorded the event `done` with
 * the error, and the notice after it changed nothing — `GET /v1/events/{id}` and a retry under its
 * key said `done` for an event that never ran. Recorded `dead` from whichever comes first, the
 * record is final at once; a ledger that let a later `dead` replace a `done` would show a poller
 * one state and then another.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { runtimeError } from '../../shared/errors/index.ts';
import { failureOutcome, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import { ORCHESTRATOR } from '../../shared/ipc/control-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { OrchestratorCore } from '../daemon/orchestrator-core.ts';
import { outcomeNotice, SETTLED_EVENT_KEY } from '../routing/foreign-outcomes.ts';
import { retryUntil } from './retry-until.ts';
import { serveRequests } from './serve-requests.ts';

export interface DeletedEventNotice {
  eventId: string;
  /** Why it was given up, as its caller and its record say it. */
  reason: string;
}

const isNotice = compiledValidator<DeletedEventNotice>({
  schema: { type: 'object', required: ['eventId', 'reason'], properties: { eventId: { type: 'string', minLength: 1 }, reason: { type: 'string' } } },
});

/** How long one attempt waits for the accepting node's answer. */
const RECEIPT_TIMEOUT_MS = 1_000;
const RETRY_MS = 500;
/** As long as a dead-lettered event's notice is sent again (foreign-outcomes.ts). */
const NOTICE_PATIENCE_MS = 60_000;

export interface DeletedEventNoticesDeps {
  nc: NatsConnection;
  nodeId: string;
  subjectOf(node: string): string;
  logger: RootLogger;
  /** The core whose ledger and waiting callers an accepting node tells (absent before start). */
  core(): OrchestratorCore | undefined;
  /** Delivers `outcome` to `node` by `attempt`, kept for it from the first miss (outcome-delivery.ts). */
  deliver(node: string, outcome: AgentEvent, attempt: (missed: () => void) => Promise<boolean>): Promise<boolean>;
}

export class DeletedEventNotices {
  constructor(private readonly deps: DeletedEventNoticesDeps) {}

  /** Resolves once `origin` recorded the event given up (at once when it is this node), or could not be told in time. */
  async tell(origin: string, notice: DeletedEventNotice): Promise<void> {
    const { nc, logger } = this.deps;
    if (origin === this.deps.nodeId) {
      this.recordHere(notice);
      return;
    }
    // Kept, it is recorded as the owner's error reply is (recordReply): dead, INSTANCE_DELETED.
    const kept = outcomeNotice(notice.eventId, failureOutcome(runtimeError('INSTANCE_DELETED', notice.reason)), notice.reason);
    await this.deps.deliver(origin, kept, async (missed) => {
      let attempts = 0;
      try {
        await retryUntil(() => nc.request(this.deps.subjectOf(origin), JSON.stringify(notice), { timeout: RECEIPT_TIMEOUT_MS }), {
          until: Date.now() + NOTICE_PATIENCE_MS,
          pauseMs: RETRY_MS,
          // Closed: this node is stopping; the message goes back to the stream and its next owner tells it.
          final: () => nc.isClosed(),
          failed: () => {
            if (++attempts === 1) missed();
          },
        });
        return true;
      } catch (error) {
        if (!nc.isClosed()) logger.warn({ origin, eventId: notice.eventId, err: error }, 'could not tell the node that accepted an event of a deleted instance that it was given up; it is kept for that node until it is back');
        return false;
      }
    });
  }

  /** Records the events of this node that other nodes gave up. */
  serve(): Subscription {
    const { nc, nodeId, logger } = this.deps;
    return serveRequests(nc, this.deps.subjectOf(nodeId), isNotice, logger, (notice, msg) => {
      // Unanswered until recorded: the sender tries again.
      if (this.recordHere(notice)) msg.respond();
    });
  }

  /**
   * A reply from another node, before it goes on to its waiter: one the runtime sent (not a turn)
   * because the event it settles was given up for its instance's deletion records that event dead.
   */
  recordReply(reply: AgentEvent): void {
    const eventId = reply.metadata?.[SETTLED_EVENT_KEY];
    if (typeof eventId !== 'string' || reply.source.name !== ORCHESTRATOR) return;
    const { error } = replyOutcomeOf(reply);
    if (error?.code !== 'INSTANCE_DELETED') return;
    this.deps.core()?.ledger.dead(eventId, error.message, error);
  }

  /** The accepting node's part (false before this node started); told twice (a redelivery given up again), it changes nothing more. */
  private recordHere({ eventId, reason }: DeletedEventNotice): boolean {
    const core = this.deps.core();
    if (!core) return false;
    core.ledger.dead(eventId, reason, runtimeError('INSTANCE_DELETED', reason));
    core.router.failRequestsFor(eventId, 'INSTANCE_DELETED', reason);
    return true;
  }
}
