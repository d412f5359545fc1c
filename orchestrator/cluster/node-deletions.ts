/**
 * A cluster node's side of instance deletions (instance-deletion.ts is the cluster-wide protocol):
 * `goondan instance delete` asked here, this node's part of any deletion (its processes stopped,
 * its files removed, its last state write done — one deletion at a time per key), and the copies
 * of instances the cluster deleted while this node was down, cut off, or running them (the
 * tombstone a write or a restore meets, state-replica.ts).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { GoondanError } from '../../shared/errors/index.ts';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { OrchestratorCore } from '../daemon/orchestrator-core.ts';
import { localInstances } from '../inspect/inspect-routes.ts';
import type { DeletionMarks } from './deletion-marks.ts';
import { DeletionRefusedError, InstanceDeletion } from './instance-deletion.ts';
import type { PartitionOwner } from './partition-owner.ts';
import type { StateReplica } from './state-replica.ts';

export interface NodeDeletionsDeps {
  nc: NatsConnection;
  subject: string;
  nodeId: string;
  stateRoot: string;
  workspaceId: string;
  logger: RootLogger;
  gracePeriodMs(): number;
  liveNodes(): string[];
  connected(): boolean;
  core(): OrchestratorCore | undefined;
  owner(): PartitionOwner;
  replica: StateReplica;
  marks: DeletionMarks;
}

type DeletedHere = { stopped: number; deleted: string[]; discarded: string[] };

export class NodeDeletions {
  private readonly deletion: InstanceDeletion;
  /** This node's deletions of instances under way, by instance key (one at a time per key). */
  private readonly underWay = new Map<string, Promise<DeletedHere>>();

  constructor(private readonly deps: NodeDeletionsDeps) {
    this.deletion = new InstanceDeletion({
      nc: deps.nc,
      subject: deps.subject,
      nodeId: deps.nodeId,
      logger: deps.logger,
      gracePeriodMs: deps.gracePeriodMs,
      liveNodes: deps.liveNodes,
      connected: deps.connected,
      deleteHere: (instanceKey, agents) => this.deleteHere(instanceKey, agents),
      markDeleted: (id) => deps.marks.mark(deps.owner().partitionOf(id), id),
      tombstone: (id) => deps.replica.tombstone(deps.owner().partitionOf(id), id),
    });
  }

  /** Answers other nodes' deletion requests. */
  serve(): ReturnType<InstanceDeletion['serve']> {
    return this.deletion.serve();
  }

  /** `goondan instance delete` for the whole cluster; CLUSTER_UNAVAILABLE when NATS is away. */
  async delete(instanceKey: string, agents: readonly string[]): Promise<JsonObject> {
    try {
      return await this.deletion.delete(instanceKey, agents);
    } catch (error) {
      const refused = error instanceof DeletionRefusedError;
      throw new GoondanError('CLUSTER_UNAVAILABLE', 'system', `instance '${instanceKey}' could not be deleted across the cluster: ${(error as Error).message}`, {
        suggestion: refused
          ? 'retry once this node is connected to NATS (see /readyz); the instance was not deleted'
          : 'retry once this node is connected to NATS (see /readyz); the cluster’s store has the deletion, and the nodes remove their copies when they next hold the instance',
      });
    }
  }

  /** Removes copies of instances the cluster deleted while this node was down or cut off (state-replica.ts). */
  async sweep(): Promise<void> {
    try {
      const local = localInstances(this.deps.stateRoot, this.deps.workspaceId).map((entry) => ({ agent: entry.agent, instanceKey: entry.instanceKey }));
      const owner = this.deps.owner();
      await this.deps.replica.sweep((id) => owner.partitionOf(id), local);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not check this node’s instances against the cluster’s deletions; they are checked when restored');
    }
  }

  /** A write here met the tombstone: the instance was deleted while it ran here (its copy goes, unless a deletion here is under way). */
  deletedElsewhere(id: AgentId): void {
    if (this.underWay.has(id.instanceKey)) return;
    void this.deleteHere(id.instanceKey, [id.agent]).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, agent: id.agent, instanceKey: id.instanceKey }, 'could not delete here an instance the cluster deleted'),
    );
  }

  /** This node's part of a deletion: its processes stopped, its files gone, its last state write done (one at a time per key). */
  private async deleteHere(instanceKey: string, agents: readonly string[]): Promise<DeletedHere> {
    const previous = this.underWay.get(instanceKey);
    const run = (previous ?? Promise.resolve()).catch(() => undefined).then(() => this.deleteHereNow(instanceKey, agents));
    this.underWay.set(instanceKey, run);
    try {
      return await run;
    } finally {
      if (this.underWay.get(instanceKey) === run) this.underWay.delete(instanceKey);
    }
  }

  private async deleteHereNow(instanceKey: string, agents: readonly string[]): Promise<DeletedHere> {
    const core = this.deps.core();
    if (!core) throw new Error('cluster node not started');
    const done = await core.deleteInstance(instanceKey, agents);
    const owner = this.deps.owner();
    for (const agent of agents) {
      owner.forgetInstance({ agent, instanceKey });
      // A write the stopped process still had under way stores nothing (the tombstone refuses it anyway).
      this.deps.replica.deletedHere({ agent, instanceKey });
    }
    await Promise.all(agents.map((agent) => this.deps.replica.idle({ agent, instanceKey })));
    return { stopped: done.stopped, deleted: done.deleted, discarded: done.discarded };
  }
}
