/**
 * Replies that left their callee before its turn reached the disk. Under `fsync: batch` an agent
 * answering another agent does not hold its reply for its fsync round (0.2–1 ms on the critical
 * path of every inter-agent call): it syncs while the reply travels and acknowledges the turn
 * (`runtime.turn.completed`) once it is on disk. Nothing anyone tells the world may rest on a
 * record a power loss can take, so:
 * - the live agent process that asked gets the reply at once, marked `unsynced`, and
 *   `runtime.reply.synced` once the callee's ack came; until then it holds back its own reply, its
 *   tool effects and its messages to others (agent-process/shell/unsynced-dependencies.ts);
 * - anyone else (an HTTP caller, a connector, another node, a requester gone meanwhile) gets the
 *   reply without the mark, once the callee's ack came.
 * A callee that exits before its ack, or a requester that exits while it waits for the notice (its
 * successor resumes from disk without knowing it): the daemon syncs the callee's records itself.
 * In cluster mode no reply goes early, to an agent either: it waits for its turn's state in the
 * cluster, which the ack's write stores (reply-release.ts), so it is held here until the ack.
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { controlEvent } from '../../shared/ipc/control-protocol.ts';
import { type ReplyOutcome, syncedReply } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import type { PendingRequest } from './pending-requests.ts';

export interface UnsyncedRepliesDeps {
  /** Whether a live agent that asked gets the reply before its callee's ack, marked (not in cluster mode). */
  answerAgentsEarly: boolean;
  supervisor: Pick<Supervisor, 'byKey'>;
  logger: RootLogger;
  /** Delivers the outcome of `callee`'s turn to the requester (requester-replies.ts). */
  answer(request: PendingRequest, outcome: ReplyOutcome, event: AgentEvent, callee: AgentId): void;
  /** fsyncs the records of `callee` (its process may be gone). */
  syncInstanceRecords(callee: AgentId): void;
}

interface Held {
  /** The process that got the reply early (its exit makes the daemon sync the callee's records). */
  requesterKey?: string;
  release(): void;
}

interface Callee {
  id: AgentId;
  /** Acknowledged event id → what the ack releases. */
  byEvent: Map<string, Held[]>;
}

export class UnsyncedReplies {
  /** By the callee's process key: its next incarnation acks a redelivered event under the same key. */
  private readonly callees = new Map<string, Callee>();

  constructor(private readonly deps: UnsyncedRepliesDeps) {}

  /** An `unsynced` reply from `callee` to `request`. */
  route(request: PendingRequest, callee: ManagedProcess, outcome: ReplyOutcome, event: AgentEvent): void {
    const requester = this.deps.answerAgentsEarly ? this.liveAgentRequester(request) : undefined;
    const { correlationId } = request;
    if (requester) {
      this.deps.answer(request, outcome, event, callee.id);
      this.deps.logger.debug({ correlationId, callee: callee.key, requester: requester.key }, 'reply forwarded before its callee synced its turn');
      const { incarnation } = requester;
      const notice = controlEvent('runtime.reply.synced', ORCHESTRATOR_SOURCE, { correlationId });
      this.hold(callee, request.requestEventId, {
        requesterKey: requester.key,
        release: () => {
          if (requester.incarnation !== incarnation || !requester.alive) return;
          requester.send({ type: 'event', from: ORCHESTRATOR, to: requester.name, payload: notice });
          this.deps.logger.debug({ correlationId, callee: callee.key, requester: requester.key }, 'told the requester its early reply is on disk');
        },
      });
      return;
    }
    const { unsynced: _unsynced, ...synced } = outcome;
    const calleeId = callee.id;
    this.hold(callee, request.requestEventId, { release: () => this.deps.answer(request, synced, syncedReply(event), calleeId) });
  }

  /** `runtime.turn.completed` from `calleeKey`: the turn that answered `eventId` is on disk. */
  synced(calleeKey: string, eventId: string): void {
    const callee = this.callees.get(calleeKey);
    const held = callee?.byEvent.get(eventId);
    if (!callee || !held) return;
    callee.byEvent.delete(eventId);
    if (callee.byEvent.size === 0) this.callees.delete(calleeKey);
    for (const entry of held) entry.release();
  }

  /** A process exited: as callee, its acks will not come; as requester, its successor would not wait. */
  exited(proc: ManagedProcess): void {
    const own = this.callees.get(proc.key);
    if (own) this.syncAndRelease(proc.key, own, 'it exited before acknowledging its turn');
    for (const [key, callee] of [...this.callees]) {
      const waitedOn = [...callee.byEvent.values()].some((held) => held.some((entry) => entry.requesterKey === proc.key));
      if (waitedOn) this.syncAndRelease(key, callee, `${proc.key}, which got its reply early, exited`);
    }
  }

  /** The agent process incarnation that asked, while it runs: it understands `unsynced`. */
  private liveAgentRequester({ requester }: PendingRequest): ManagedProcess | undefined {
    if (requester.kind !== 'process') return undefined;
    const proc = this.deps.supervisor.byKey(requester.key);
    return proc?.kind === 'agent' && proc.incarnation === requester.incarnation && proc.alive ? proc : undefined;
  }

  private hold(callee: ManagedProcess, eventId: string, entry: Held): void {
    let waiting = this.callees.get(callee.key);
    if (!waiting) this.callees.set(callee.key, (waiting = { id: callee.id, byEvent: new Map() }));
    const held = waiting.byEvent.get(eventId);
    if (held) held.push(entry);
    else waiting.byEvent.set(eventId, [entry]);
  }

  private syncAndRelease(key: string, callee: Callee, why: string): void {
    this.callees.delete(key);
    this.deps.syncInstanceRecords(callee.id);
    this.deps.logger.info({ callee: key, events: [...callee.byEvent.keys()], why }, 'synced the records of an agent that answered before its own sync');
    for (const held of callee.byEvent.values()) for (const entry of held) entry.release();
  }
}
