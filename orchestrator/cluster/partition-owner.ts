/**
 * What owning a partition means on this node: pulling its inbox, restoring an instance's state
 * before its first event here, acking an event once its turn is folded and replicated, and
 * giving the partition up — handed over (drain the instances, store their state, return what is
 * unfinished) or lost to a node that took the lease (stop at once; that node redoes the work).
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { OrchestratorCore } from '../daemon/orchestrator-core.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { ClusterInbox, InboxEnvelope } from './cluster-inbox.ts';
import { partitionOf } from './partitions.ts';
import { retryUntil } from './retry-until.ts';
import { StateFencedError, type StateReplica } from './state-replica.ts';

const SETTLE_RETRY_MS = 500;
/** How long a tool call waits for its state to be stored before it fails without running. */
const STATE_SYNC_PATIENCE_MS = 30_000;

export interface PartitionOwnerOptions {
  inbox: ClusterInbox;
  replica: StateReplica;
  partitions: number;
  logger: RootLogger;
  gracePeriodMs(): number;
  /** The state of `partition` was written by another node: it is not ours any more. */
  onFenced(partition: number): void;
  /** This node took `partition` up (its inbox is pulled). */
  onTaken?(partition: number): void;
  /** This node gives `partition` up: handed over or lost. */
  onGivingUp?(partition: number): void;
}

export class PartitionOwner {
  private core: OrchestratorCore | undefined;
  /** Instances whose state this node restored (and therefore may run), by agentKey. */
  private readonly restored = new Map<string, { id: AgentId; partition: number }>();
  private readonly handingOver = new Set<string>();

  constructor(private readonly options: PartitionOwnerOptions) {}

  attach(core: OrchestratorCore): void {
    this.core = core;
  }

  partitionOf(id: AgentId): number {
    return partitionOf(id, this.options.partitions);
  }

  async acquire(partition: number): Promise<void> {
    await this.options.inbox.startPartition(partition);
    this.options.onTaken?.(partition);
  }

  /** A pulled event: the instance's state comes first, then local delivery (which spawns it). */
  async deliver(envelope: InboxEnvelope, partition: number): Promise<void> {
    const core = this.requireCore();
    const key = agentKey(envelope.target);
    if (!this.restored.has(key)) {
      await this.options.replica.restore(partition, envelope.target);
      this.restored.set(key, { id: envelope.target, partition });
    }
    core.router.deliverHere(envelope.target, envelope.event, envelope.from, envelope.origin);
  }

  /**
   * Done here: replicate the folded state, then ack (a crash in between redelivers; the agent sees
   * it finished). While NATS is away the sync is retried for as long as the event is ours.
   */
  settled(id: AgentId, eventId: string): void {
    const partition = this.partitionOf(id);
    this.options.replica.sync(partition, id).then(
      () => this.options.inbox.ack(eventId),
      (error: unknown) => {
        this.syncFailed(partition, id, error);
        if (error instanceof StateFencedError || !this.options.inbox.isInFlight(eventId)) return;
        setTimeout(() => this.options.inbox.isInFlight(eventId) && this.settled(id, eventId), SETTLE_RETRY_MS).unref?.();
      },
    );
  }

  /** Before a tool acts: retried while NATS is away (a server restart takes seconds), up to a limit. */
  async syncState(proc: ManagedProcess): Promise<void> {
    const partition = this.partitionOf(proc.id);
    await retryUntil(() => this.options.replica.sync(partition, proc.id), {
      until: Date.now() + STATE_SYNC_PATIENCE_MS,
      pauseMs: SETTLE_RETRY_MS,
      final: (error) => error instanceof StateFencedError || !proc.alive,
      failed: (error) => this.syncFailed(partition, proc.id, error),
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

  private syncFailed(partition: number, id: AgentId, error: unknown): void {
    if (error instanceof StateFencedError) {
      this.options.logger.error({ partition, agent: id.agent, instanceKey: id.instanceKey, err: error }, 'another node wrote this instance state: giving up the partition');
      this.options.onFenced(partition);
      return;
    }
    this.options.logger.warn({ partition, agent: id.agent, instanceKey: id.instanceKey, err: error }, 'could not store instance state in the cluster (NATS away?); retrying');
  }

  private requireCore(): OrchestratorCore {
    if (!this.core) throw new Error('the partition owner is not attached to the orchestrator core');
    return this.core;
  }
}
