/**
 * What a callee's turn tells anyone — its reply to whoever asked, the outcome of its event in a
 * ledger — on its way out. In cluster mode it goes only once the state of the turn is stored in the
 * cluster: a node cut off long enough that another took its partitions over could finish a turn
 * there and tell its answer, then have its state write refused, the event run again on the new
 * owner and end with another stored answer. It waits for the write the turn's ack makes anyway.
 * Withheld, a request waits again here for the answer of the run that is stored (a caller on
 * another node gets it from the new owner directly), and the outcome is recorded from that run.
 *
 * This holds for every requester, an agent asking on this node included (before, it got the reply
 * at once and went on with an answer the cluster could replace; unsynced-replies.ts no longer hands
 * such a reply over before its callee's ack in cluster mode), and for outcome records: this node's
 * ledger and the notices to a node that accepted the event (foreign-outcomes.ts).
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { within } from '../../shared/within.ts';
import type { PendingRequest, PendingRequests } from './pending-requests.ts';
import type { ClusterRouting } from './router.ts';

export interface ReplyReleaseDeps {
  /** Absent on a single node: everything goes at once. */
  cluster: Pick<ClusterRouting, 'replyStored'> | undefined;
  logger: RootLogger;
  pending: PendingRequests;
  answer(request: PendingRequest, outcome: ReplyOutcome, event: AgentEvent): void;
  /** A request whose deadline passed while it waited again. */
  expired(request: PendingRequest): void;
}

export class ReplyRelease {
  constructor(private readonly deps: ReplyReleaseDeps) {}

  /** `callee`: the process here that answered; absent for a reply relayed from another node (held there). */
  release(request: PendingRequest, outcome: ReplyOutcome, event: AgentEvent, callee: AgentId | undefined): void {
    const { cluster } = this.deps;
    if (!cluster || !callee) {
      this.deps.answer(request, outcome, event);
      return;
    }
    const stored = within(cluster.replyStored(callee, request.requestEventId), Math.max(0, request.deadline - Date.now()), () => false);
    void stored.then((ok) => {
      if (ok) {
        this.deps.answer(request, outcome, event);
        return;
      }
      this.deps.logger.warn(
        { correlationId: request.correlationId, eventId: request.requestEventId, callee: agentKey(callee), traceId: request.traceId },
        'withheld a reply whose turn could not be stored in the cluster (the instance is another node’s now, which runs the event again and answers)',
      );
      // A remote caller's node waits itself; one here waits again, until its own deadline.
      const { pending } = this.deps;
      if (request.requester.kind !== 'remote' && !pending.has(request.correlationId)) pending.add(request, (expired) => this.deps.expired(expired));
    });
  }

  /**
   * The outcome of `callee`'s turn for `eventId` recorded by `record` (a ledger's `done`, a notice to
   * the node that accepted the event): at once on a single node, in a cluster once the turn's state
   * is stored, and never when that write was fenced — the run that is stored records its own.
   */
  outcome(callee: AgentId, eventId: string, record: () => void): void {
    const { cluster } = this.deps;
    if (!cluster) {
      record();
      return;
    }
    void cluster.replyStored(callee, eventId).then((ok) => {
      if (ok) {
        record();
        return;
      }
      this.deps.logger.warn(
        { eventId, callee: agentKey(callee) },
        'withheld the outcome of a turn that could not be stored in the cluster (the instance is another node’s now, which runs the event again and records its outcome)',
      );
    });
  }
}
