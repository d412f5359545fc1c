/**
 * A callee's reply on its way to its requester. In cluster mode one that leaves the swarm's agents
 * on this node — for an HTTP caller, a connector, a caller on another node — goes only once the
 * state of the turn it ends is stored in the cluster: a node cut off long enough that another took
 * its partitions over could finish a turn there and answer, then have its state write refused, the
 * event run again on the new owner and end with another stored answer. Withheld, the request waits
 * again here for the new owner's answer (a caller on another node gets it from the new owner
 * directly). It waits for the write the turn's ack makes anyway. An agent asking on this node gets
 * the reply at once, as without a cluster (unsynced-replies.ts).
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { within } from '../../shared/within.ts';
import type { Supervisor } from '../process/supervisor.ts';
import type { PendingRequest, PendingRequests, Requester } from './pending-requests.ts';
import type { ClusterRouting } from './router.ts';

export interface ReplyReleaseDeps {
  /** Absent on a single node: every reply goes at once. */
  cluster: Pick<ClusterRouting, 'replyStored'> | undefined;
  supervisor: Pick<Supervisor, 'byKey'>;
  logger: RootLogger;
  pending: PendingRequests;
  answer(request: PendingRequest, outcome: ReplyOutcome, event: AgentEvent): void;
  /** A request whose deadline passed while it waited again. */
  expired(request: PendingRequest): void;
}

export class ReplyRelease {
  constructor(private readonly deps: ReplyReleaseDeps) {}

  release(request: PendingRequest, outcome: ReplyOutcome, event: AgentEvent, callee: AgentId | undefined): void {
    const { cluster } = this.deps;
    if (!cluster || !callee || this.isLiveAgent(request.requester)) {
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

  private isLiveAgent(requester: Requester): boolean {
    if (requester.kind !== 'process') return false;
    const proc = this.deps.supervisor.byKey(requester.key);
    return proc?.kind === 'agent' && proc.incarnation === requester.incarnation && proc.alive;
  }
}
