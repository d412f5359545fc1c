/**
 * Cluster mode: `DELETE /v1/instances/{key}` (`goondan instance delete`, `restart --fresh`) for the
 * whole cluster. A node deleted only what it held itself: asked on another node than the
 * instance's owner it deleted nothing (and said `deleted: []`); asked on the owner it deleted the
 * files but not the state snapshot in JetStream KV, which the next owner restored after a
 * takeover — a deleted conversation came back. Now every node stops its processes of the instance
 * and deletes its files (scatter/gather over core NATS, as the process table is gathered), waiting
 * for the instance's last state write; then the snapshots go from the bucket.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { messageJson } from './kv-json.ts';
import { serveRequests } from './serve-requests.ts';

interface DeleteRequest {
  instanceKey: string;
  agents: string[];
}

interface NodeDeletion {
  node: string;
  stopped: number;
  deleted: string[];
  /** Events queued for the instance on that node, given up (absent from an older node). */
  discarded?: string[];
}

const isRequest = compiledValidator<DeleteRequest>({
  schema: { type: 'object', required: ['instanceKey', 'agents'], properties: { instanceKey: { type: 'string', minLength: 1 }, agents: { type: 'array', items: { type: 'string' } } } },
});
const isDeletion = compiledValidator<NodeDeletion>({
  schema: {
    type: 'object',
    required: ['node', 'stopped', 'deleted'],
    properties: {
      node: { type: 'string', minLength: 1 },
      stopped: { type: 'number' },
      deleted: { type: 'array', items: { type: 'string' } },
      discarded: { type: 'array', items: { type: 'string' } },
    },
  },
});

/** Nodes stop a draining turn for up to the swarm's grace period: wait that long for their answers, and a little more. */
const ANSWER_MARGIN_MS = 3_000;

export interface InstanceDeletionDeps {
  nc: NatsConnection;
  subject: string;
  nodeId: string;
  logger: RootLogger;
  /** This node's own deletion (stops processes, removes files, forgets what it restored); resolves once the instance's last state write is done. */
  deleteHere(instanceKey: string, agents: readonly string[]): Promise<{ stopped: number; deleted: string[]; discarded: string[] }>;
  /** Removes the instance's state snapshot from the cluster. */
  dropSnapshot(id: AgentId): Promise<void>;
  /** How many nodes are live (how many answers to wait for). */
  liveNodes(): number;
  /** The swarm's shutdown grace period (a running turn drains for up to it). */
  gracePeriodMs(): number;
}

export class InstanceDeletion {
  constructor(private readonly deps: InstanceDeletionDeps) {}

  /** Every node's part, then the snapshots; throws when this node's own answer did not come back (NATS away). */
  async delete(instanceKey: string, agents: readonly string[]): Promise<JsonObject> {
    const { nc, subject } = this.deps;
    const replies = await nc.requestMany(subject, JSON.stringify({ instanceKey, agents: [...agents] } satisfies DeleteRequest), {
      // Every live node answers (this one too); a node that died meanwhile is waited for until maxWait.
      strategy: 'count',
      maxMessages: Math.max(1, this.deps.liveNodes()),
      maxWait: this.deps.gracePeriodMs() + ANSWER_MARGIN_MS,
    });
    const nodes: NodeDeletion[] = [];
    for await (const reply of replies) {
      const value = messageJson(reply);
      if (isDeletion(value)) nodes.push(value);
      else this.deps.logger.warn('dropped a malformed instance-deletion answer from another node');
    }
    if (!nodes.some((node) => node.node === this.deps.nodeId)) throw new Error('the other nodes could not be asked (NATS did not carry the request)');
    for (const agent of agents) await this.deps.dropSnapshot({ agent, instanceKey });
    return {
      instanceKey,
      stopped: nodes.reduce((sum, node) => sum + node.stopped, 0),
      deleted: nodes.flatMap((node) => node.deleted.map((path) => `${node.node}:${path}`)),
      discarded: nodes.flatMap((node) => node.discarded ?? []),
      nodes: nodes.map((node) => node.node).sort(),
    };
  }

  /** Answers other nodes' deletions with this node's part. */
  serve(): Subscription {
    return serveRequests(this.deps.nc, this.deps.subject, isRequest, this.deps.logger, (request, msg) => {
      this.deps
        .deleteHere(request.instanceKey, request.agents)
        .then((done) => msg.respond(JSON.stringify({ node: this.deps.nodeId, ...done } satisfies NodeDeletion)))
        .catch((failure: unknown) => this.deps.logger.warn({ err: failure, instanceKey: request.instanceKey }, 'could not delete an instance here for another node'));
    });
  }
}
