/**
 * What owning a partition means on this node: pulling its inbox, restoring an instance's state
 * before its first event here, acking an event once its turn is folded and replicated, and
 * giving the partition up — handed over (drain the instances, store their state, return what is
 * unfinished) or lost to a node that took the lease (stop at once; that node redoes the work).
 * An event a node held when its instance was deleted is given up here, never run (deletion-marks.ts).
 */
import { newSpanId, newTraceId } from '../../shared/ids.ts';
import { within } from '../../shared/within.ts';
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { OrchestratorCore } from '../daemon/orchestrator-core.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { ClusterInbox, InboxEnvelope } from './cluster-inbox.ts';
import { partitionOf } from './partitions.ts';
import { retryUntil } from './retry-until.ts';
import { StateFencedError, type StateReplica, SupersededWriteError } from './state-replica.ts';

const SETTLE_RETRY_MS = 500;
/** Outcomes of recent state writes remembered for a reply that asks after its turn's write (rare). */
const MAX_REMEMBERED_WRITES = 1_024;
/** How long a tool call waits for its state to be stored before it fails without running. */
const STATE_SYNC_PATIENCE_MS = 30_000;
/**
 * How long an ack waits for its event's outcome to be handed off: a first attempt (1 s) and a keep
 * take far less; past it the ack goes anyway, as it did before the wait.
 */
const HAND_OFF_PATIENCE_MS = 10_000;

export interface PartitionOwnerOptions {
  inbox: ClusterInbox;
  replica: StateReplica;
  partitions: number;
  logger: RootLogger;
  gracePeriodMs(): number;
  /** The state of `partition` was written by another node: it is not ours any more (told once per loss, however many writes were refused). */
  onFenced(partition: number): void;
  /** This node took `partition` up (its inbox is pulled). */
  onTaken?(partition: number): void;
  /** This node gives `partition` up: handed over or lost. */
  onGivingUp?(partition: number): void;
  /** The instances of `partition` waiting for a tool approval (pending-approval-marks.ts): restored as it is taken up. */
  pendingApprovals(partition: number): AgentId[];
  /** Up to which inbox stream sequence a deletion gave the instance's messages up (0: none); read after its state is restored. */
  deletedThrough(partition: number, id: AgentId): Promise<number>;
  /** Tells the node that accepted a given-up event (deleted-event-notices.ts); resolves once it knows, or could not be told. */
  tellGivenUp(origin: string, eventId: string, reason: string): Promise<void>;
  /** Resolves once the outcome of `eventId` reached the node that accepted it, or is kept for it (outcome-delivery.ts). */
  outcomeHandedOff(eventId: string): Promise<void>;
}

/** An instance whose state this node restored, and the messages of it a deletion gave up. */
interface Restored {
  id: AgentId;
  partition: number;
  deletedThrough: number;
}

export class PartitionOwner {
  private core: OrchestratorCore | undefined;
  /** Instances whose state this node restored (and therefore may run), by agentKey. */
  private readonly restored = new Map<string, Restored>();
  private readonly handingOver = new Set<string>();
  /** Replies waiting for the state write of the turn they end, by event id (replyStored). */
  private readonly storing = new Map<string, { partition: number; waiters: Array<(stored: boolean) => void> }>();
  /** Whether the state write after an event's turn landed, for the most recent events. */
  private readonly written = new Map<string, boolean>();
  /** How many times each partition was taken up here: a refused write belongs to the tenure it started in. */
  private readonly tenures = new Map<number, number>();
  /**
   * Partitions whose current tenure is over (lost, or fenced and told): every write of the tenure
   * still under way is refused too, and each used to call onFenced — one loss handled (the lease
   * dropped, the instances stopped) and logged as many times as writes were refused.
   */
  private readonly ended = new Set<number>();
  /** Restores at takeover of instances that wait for an approval, under way. */
  private readonly loading = new Set<Promise<void>>();

  constructor(private readonly options: PartitionOwnerOptions) {}

  attach(core: OrchestratorCore): void {
    this.core = core;
  }

  partitionOf(id: AgentId): number {
    return partitionOf(id, this.options.partitions);
  }

  async acquire(partition: number): Promise<void> {
    this.tenures.set(partition, this.tenureOf(partition) + 1);
    this.ended.delete(partition);
    // Before its events: an approval an instance of it waits for is held here from now on, not from its next event.
    const loading = this.restorePending(partition);
    this.loading.add(loading);
    await loading.finally(() => this.loading.delete(loading));
    await this.options.inbox.startPartition(partition);
    this.options.onTaken?.(partition);
  }

  /**
   * A pulled event (`seq`: its inbox stream sequence): the instance's state comes first, then local
   * delivery (which spawns it) — unless the instance was deleted while a node held the event.
   */
  async deliver(envelope: InboxEnvelope, partition: number, seq: number): Promise<void> {
    const core = this.requireCore();
    const key = agentKey(envelope.target);
    const restored = this.restored.get(key) ?? (await this.restore(partition, envelope.target));
    if (seq <= restored.deletedThrough) {
      this.giveUp(envelope);
      return;
    }
    // Run here again (given back, lost and claimed again): what its last run's write came to is past.
    this.written.delete(envelope.event.id);
    core.router.deliverHere(envelope.target, envelope.event, envelope.from, envelope.origin);
  }

  /** Once the instances with pending approvals of the partitions being taken up here are restored (their approvals held). */
  async pendingRestored(): Promise<void> {
    await Promise.all(this.loading);
  }

  private async restore(partition: number, id: AgentId): Promise<Restored> {
    await this.options.replica.restore(partition, id);
    // Read after the restore: a tombstone it met was written after the mark (instance-deletion.ts), so the mark is seen.
    const restored = { id, partition, deletedThrough: await this.options.deletedThrough(partition, id) };
    this.restored.set(agentKey(id), restored);
    return restored;
  }

  /** The partition's instances that wait for an approval: restored now; one that cannot be is restored with its next event, as before. */
  private async restorePending(partition: number): Promise<void> {
    const tenure = this.tenureOf(partition);
    for (const id of this.options.pendingApprovals(partition)) {
      // Lost meanwhile (fenced): its instances are the new owner's to restore.
      if (this.ended.has(partition) || this.tenureOf(partition) !== tenure) return;
      if (this.restored.has(agentKey(id))) continue;
      await this.restore(partition, id).catch((error: unknown) =>
        this.options.logger.warn({ partition, agent: id.agent, instanceKey: id.instanceKey, err: error }, 'could not restore an instance that waits for an approval at takeover; its next event restores it'),
      );
    }
  }

  /**
   * Done here: replicate the folded state, then ack once its outcome is handed off to the node that
   * accepted it (a crash in between redelivers; the agent sees it finished and answers again). While
   * NATS is away the sync is retried for as long as the event is ours.
   */
  settled(id: AgentId, eventId: string): void {
    const partition = this.partitionOf(id);
    // Lost meanwhile (its processes' last messages can still arrive): the new owner's state is not ours to write.
    if (!this.restored.has(agentKey(id))) {
      this.wrote(eventId, false);
      return;
    }
    const tenure = this.tenureOf(partition);
    this.options.replica.sync(partition, id).then(
      () => {
        // Asked before wrote() releases the outcome: its hand-off is awaited from now on.
        const handedOff = within(this.options.outcomeHandedOff(eventId), HAND_OFF_PATIENCE_MS, () => undefined);
        this.wrote(eventId, true);
        void handedOff.then(() => this.options.inbox.ack(eventId));
      },
      (error: unknown) => {
        this.syncFailed(partition, tenure, id, error);
        if (error instanceof StateFencedError || !this.options.inbox.isInFlight(eventId)) {
          this.wrote(eventId, false);
          return;
        }
        setTimeout(() => (this.options.inbox.isInFlight(eventId) ? this.settled(id, eventId) : this.wrote(eventId, false)), SETTLE_RETRY_MS).unref?.();
      },
    );
  }

  /**
   * A reply of the turn that ran `eventId` here may leave once that turn's state is in the cluster
   * (true), and never when its write was fenced or the partition left this node (false): the event
   * then runs again on the new owner, whose answer is the one that counts. It waits for the write
   * the turn's ack makes anyway (settled), not for one of its own.
   */
  replyStored(id: AgentId, eventId: string): Promise<boolean> {
    const known = this.written.get(eventId);
    if (known !== undefined) return Promise.resolve(known);
    if (!this.restored.has(agentKey(id))) return Promise.resolve(false);
    return new Promise((resolve) => {
      let waiting = this.storing.get(eventId);
      if (!waiting) this.storing.set(eventId, (waiting = { partition: this.partitionOf(id), waiters: [] }));
      waiting.waiters.push(resolve);
    });
  }

  /**
   * Held by a node when its instance was deleted (that node died or was cut off with it): given up
   * as a deletion gives up what it finds queued (instance-removal.ts), and acked once the accepting
   * node knows — gone from the stream, it never runs.
   */
  private giveUp({ target, event, origin }: InboxEnvelope): void {
    const reason = `instance '${target.instanceKey}' of agent '${target.agent}' was deleted while a node that then stopped held this event; it will not run`;
    this.options.logger.info({ agent: target.agent, instanceKey: target.instanceKey, eventId: event.id, origin }, 'gave up an event a node held when its instance was deleted');
    // A caller that does not wait sees it in the stream, as on one node.
    this.requireCore().runtimeEvents.publish({
      type: 'event.dead',
      eventId: event.id,
      reason,
      agentName: target.agent,
      instanceKey: target.instanceKey,
      traceId: event.traceId ?? newTraceId(),
      spanId: newSpanId(),
      ...(event.parentSpanId !== undefined ? { parentSpanId: event.parentSpanId } : {}),
      timestamp: new Date().toISOString(),
    });
    void this.options
      .tellGivenUp(origin, event.id, reason)
      .catch((error: unknown) => this.options.logger.warn({ eventId: event.id, origin, err: error }, 'could not tell the node that accepted a given-up event; it is given up all the same'))
      .then(() => this.options.inbox.ack(event.id));
  }

  private wrote(eventId: string, stored: boolean): void {
    if (this.written.size >= MAX_REMEMBERED_WRITES) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
    this.written.set(eventId, stored);
    const waiting = this.storing.get(eventId);
    this.storing.delete(eventId);
    for (const resolve of waiting?.waiters ?? []) resolve(stored);
  }

  /** Before a tool acts: retried while NATS is away (a server restart takes seconds), up to a limit. */
  async syncState(proc: ManagedProcess): Promise<void> {
    const partition = this.partitionOf(proc.id);
    const tenure = this.tenureOf(partition);
    await retryUntil(() => this.options.replica.sync(partition, proc.id), {
      until: Date.now() + STATE_SYNC_PATIENCE_MS,
      pauseMs: SETTLE_RETRY_MS,
      final: (error) => error instanceof StateFencedError || !proc.alive,
      failed: (error) => this.syncFailed(partition, tenure, proc.id, error),
    });
  }

  isHandingOver(proc: ManagedProcess): boolean {
    return this.handingOver.has(proc.key);
  }

  /** Graceful: no new events, running turns finish (and are acked), state stored, the rest returned. */
  async handOver(partition: number): Promise<void> {
    const core = this.requireCore();
    this.options.inbox.stopPulling(partition);
    this.options.onGivingUp?.(partition);
    const procs = this.processesOf(partition);
    for (const proc of procs) this.handingOver.add(proc.key);
    await Promise.all(procs.map((proc) => core.supervisor.stop(proc, this.options.gracePeriodMs(), 'restart', false)));
    const instances = this.instancesOf(partition);
    const stored = await Promise.allSettled(instances.map((id) => this.options.replica.sync(partition, id)));
    for (const result of stored) if (result.status === 'rejected') this.options.logger.warn({ partition, err: result.reason }, 'the last state of an instance could not be stored before hand-over');
    const returned = this.options.inbox.dropUnfinished(partition, true);
    this.forget(partition, procs);
    this.options.logger.info({ partition, instances: instances.length, returned }, 'handed a partition over');
  }

  /** Another node owns the partition now: stop its instances at once, without acking anything. */
  async lose(partition: number): Promise<void> {
    const core = this.requireCore();
    // Its writes still under way are refused now: that is this loss, not another one.
    this.ended.add(partition);
    this.options.inbox.stopPulling(partition);
    this.options.onGivingUp?.(partition);
    this.options.inbox.dropUnfinished(partition, false);
    const procs = this.processesOf(partition);
    for (const proc of procs) this.handingOver.add(proc.key);
    await Promise.all(procs.map((proc) => core.supervisor.stop(proc, 0, 'restart', false)));
    this.forget(partition, procs);
    this.options.logger.warn({ partition, stopped: procs.length }, 'lost a partition to another node; its instances were stopped here');
  }

  /** The instance was deleted here: a later event restores it afresh (from a bucket without its snapshot). */
  forgetInstance(id: AgentId): void {
    this.restored.delete(agentKey(id));
    this.options.replica.forget(id);
  }

  private forget(partition: number, procs: ManagedProcess[]): void {
    const core = this.requireCore();
    for (const proc of procs) this.handingOver.delete(proc.key);
    // Turns whose state was not written here by now never will be: their replies stay unsent.
    for (const [eventId, waiting] of this.storing) if (waiting.partition === partition) this.wrote(eventId, false);
    for (const [key, entry] of this.restored) {
      if (entry.partition !== partition) continue;
      this.restored.delete(key);
      this.options.replica.forget(entry.id);
      core.delivery.forget(entry.id);
      core.router.dropRemoteWaiters(entry.id);
    }
  }

  private processesOf(partition: number): ManagedProcess[] {
    return this.requireCore()
      .supervisor.list()
      .filter((proc) => proc.kind === 'agent' && this.partitionOf(proc.id) === partition);
  }

  private instancesOf(partition: number): AgentId[] {
    return [...this.restored.values()].filter((entry) => entry.partition === partition).map((entry) => entry.id);
  }

  /** `tenure`: the partition's tenure when the write started (a write of an earlier one says nothing of the current). */
  private syncFailed(partition: number, tenure: number, id: AgentId, error: unknown): void {
    if (error instanceof StateFencedError) {
      // Superseded: begun before the instance was restored again here (within this tenure too, e.g. after a deletion).
      if (error instanceof SupersededWriteError || tenure !== this.tenureOf(partition) || this.ended.has(partition)) {
        this.options.logger.debug({ partition, agent: id.agent, instanceKey: id.instanceKey }, 'a state write of a partition this node already gave up was refused');
        return;
      }
      this.ended.add(partition);
      this.options.logger.error({ partition, agent: id.agent, instanceKey: id.instanceKey, err: error }, 'another node wrote this instance state: giving up the partition');
      this.options.onFenced(partition);
      return;
    }
    this.options.logger.warn({ partition, agent: id.agent, instanceKey: id.instanceKey, err: error }, 'could not store instance state in the cluster (NATS away?); retrying');
  }

  private tenureOf(partition: number): number {
    return this.tenures.get(partition) ?? 0;
  }

  private requireCore(): OrchestratorCore {
    if (!this.core) throw new Error('the partition owner is not attached to the orchestrator core');
    return this.core;
  }
}
