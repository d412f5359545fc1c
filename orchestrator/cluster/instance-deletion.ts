/**
 * Cluster mode: `DELETE /v1/instances/{key}` (`goondan instance delete`, `restart --fresh`) for the
 * whole cluster. A node deleted only what it held itself: asked on another node than the
 * instance's owner it deleted nothing (and said `deleted: []`); asked on the owner it deleted the
 * files but not the state snapshot in JetStream KV, which the next owner restored after a
 * takeover — a deleted conversation came back. Now every node stops its processes of the instance
 * and deletes its files (scatter/gather over core NATS, as the process table is gathered).
 *
 * The cluster's record goes first: the snapshot gives way to a tombstone (state-replica.ts) before
 * any node is asked. Dropped at the end, as it was, a node that took the instance over while the
 * others were asked restored the old conversation from the snapshot and stored it again, and a node
 * that was down kept its files and brought the conversation back when it returned. The tombstone
 * makes both remove their copies, so waiting for a node that cannot answer buys nothing: each node
 * says at once that it got the request (a receipt), the deletion waits for the final answers of
 * the nodes that did (a running turn drains for up to the grace period), and names the live nodes
 * that did not (`unreachable`). A node cut off from NATS refuses at once.
 *
 * Before the tombstone, the deletion marks how far owners had taken the instance's inbox
 * (deletion-marks.ts): an event a node held then (running, or queued there) that comes back —
 * that node died or was cut off — is given up by whichever node pulls it next, not run in the new
 * conversation.
 */
import { createInbox, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { Withdrawal } from './deletion-marks.ts';
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

/** Sent the moment a node gets the request, before its part is done. */
interface Receipt {
  node: string;
  receipt: true;
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

const isReceipt = compiledValidator<Receipt>({
  schema: { type: 'object', required: ['node', 'receipt'], properties: { node: { type: 'string', minLength: 1 }, receipt: { const: true } } },
});

/** Nodes stop a draining turn for up to the swarm's grace period: wait that long for their answers, and a little more. */
const ANSWER_MARGIN_MS = 3_000;
/** A live node's receipt comes in a round trip; one that has not come by then is from a node that is down or cut off. */
const RECEIPT_WAIT_MS = 2_000;

/** This node cannot reach NATS: nothing was deleted. */
export class DeletionRefusedError extends Error {
  override name = 'DeletionRefusedError';
}

export interface InstanceDeletionDeps {
  nc: NatsConnection;
  subject: string;
  nodeId: string;
  logger: RootLogger;
  /** This node's own deletion (stops processes, removes files, forgets what it restored); resolves once the instance's last state write is done. */
  deleteHere(instanceKey: string, agents: readonly string[]): Promise<{ stopped: number; deleted: string[]; discarded: string[] }>;
  /** Marks the instance's inbox messages owners have taken so far as given up; resolves with how to take the mark back. */
  markDeleted(id: AgentId): Promise<Withdrawal>;
  /** Replaces the instance's state snapshot in the cluster with its tombstone. */
  tombstone(id: AgentId): Promise<void>;
  /** Whether this node is connected to NATS now. */
  connected(): boolean;
  /** The live nodes (whose receipts to wait for). */
  liveNodes(): string[];
  /** The swarm's shutdown grace period (a running turn drains for up to it). */
  gracePeriodMs(): number;
}

export class InstanceDeletion {
  constructor(private readonly deps: InstanceDeletionDeps) {}

  /**
   * The marks and tombstones, then every node's part. Throws DeletionRefusedError when this node is
   * cut off from NATS or the marks or tombstones could not be written (nothing deleted), another
   * error when this node's own answer did not come back (the tombstones are written: a retry
   * finishes the rest).
   */
  async delete(instanceKey: string, agents: readonly string[]): Promise<JsonObject> {
    if (!this.deps.connected()) throw new DeletionRefusedError('this node is not connected to NATS');
    const ids = agents.map((agent) => ({ agent, instanceKey }));
    // The marks first: a node that finds a tombstone when it restores the instance then finds its mark too.
    const marks = await Promise.allSettled(ids.map((id) => this.deps.markDeleted(id)));
    try {
      for (const mark of marks) if (mark.status === 'rejected') throw mark.reason;
      await Promise.all(ids.map((id) => this.deps.tombstone(id)));
    } catch (error) {
      await this.withdraw(instanceKey, marks);
      throw new DeletionRefusedError(`the cluster's store did not take the deletion: ${(error as Error).message}`);
    }
    const live = this.deps.liveNodes();
    const nodes = await this.ask({ instanceKey, agents: [...agents] }, live);
    if (!nodes.some((node) => node.node === this.deps.nodeId)) throw new Error('the other nodes could not be asked (NATS did not carry the request)');
    const answered = new Set(nodes.map((node) => node.node));
    return {
      instanceKey,
      stopped: nodes.reduce((sum, node) => sum + node.stopped, 0),
      deleted: nodes.flatMap((node) => node.deleted.map((path) => `${node.node}:${path}`)),
      discarded: nodes.flatMap((node) => node.discarded ?? []),
      nodes: [...answered].sort(),
      // Their copies go when they next hold the instance or reconnect (the tombstone says so).
      unreachable: live.filter((node) => !answered.has(node)).sort(),
    };
  }

  /** The deletion did not happen: the marks it wrote would give up events of an instance that goes on. */
  private async withdraw(instanceKey: string, marks: ReadonlyArray<PromiseSettledResult<Withdrawal>>): Promise<void> {
    const withdrawn = await Promise.allSettled(marks.map((mark) => (mark.status === 'fulfilled' ? mark.value() : Promise.resolve())));
    for (const result of withdrawn) {
      if (result.status === 'rejected') this.deps.logger.warn({ instanceKey, err: result.reason }, 'a refused instance deletion could not take back its mark: events nodes held before it may be given up when a node next restores the instance');
    }
  }

  /** Final answers of every node that sent a receipt (in time), each waited for up to the grace period. */
  private ask(request: DeleteRequest, live: readonly string[]): Promise<NodeDeletion[]> {
    const { nc, subject, logger } = this.deps;
    const inbox = createInbox();
    const receipts = new Set<string>();
    const answers = new Map<string, NodeDeletion>();
    return new Promise((resolve) => {
      let receiptsDue = false;
      const finish = () => {
        clearTimeout(receiptTimer);
        clearTimeout(deadline);
        subscription.unsubscribe();
        resolve([...answers.values()]);
      };
      const check = () => {
        const receiptsIn = receiptsDue || live.every((node) => receipts.has(node));
        if (receiptsIn && [...receipts].every((node) => answers.has(node))) finish();
      };
      const subscription = nc.subscribe(inbox, {
        callback: (error, msg) => {
          if (error) return;
          const value = messageJson(msg);
          if (isReceipt(value)) receipts.add(value.node);
          else if (isDeletion(value)) {
            receipts.add(value.node);
            answers.set(value.node, value);
          } else logger.warn('dropped a malformed instance-deletion answer from another node');
          check();
        },
      });
      const receiptTimer = setTimeout(() => {
        receiptsDue = true;
        check();
      }, RECEIPT_WAIT_MS);
      const deadline = setTimeout(finish, this.deps.gracePeriodMs() + ANSWER_MARGIN_MS);
      nc.publish(subject, JSON.stringify(request), { reply: inbox });
    });
  }

  /** Answers other nodes' deletions with this node's part. */
  serve(): Subscription {
    return serveRequests(this.deps.nc, this.deps.subject, isRequest, this.deps.logger, (request, msg) => {
      msg.respond(JSON.stringify({ node: this.deps.nodeId, receipt: true } satisfies Receipt));
      this.deps
        .deleteHere(request.instanceKey, request.agents)
        .then((done) => msg.respond(JSON.stringify({ node: this.deps.nodeId, ...done } satisfies NodeDeletion)))
        .catch((failure: unknown) => this.deps.logger.warn({ err: failure, instanceKey: request.instanceKey }, 'could not delete an instance here for another node'));
    });
  }
}
