/**
 * Cluster mode: pending tool approvals on any node. An approval is held by the node whose agent
 * asked; behind a load balancer the person's `GET /v1/approvals` (the studio's list) reached another
 * node and showed nothing, and their decision got 404. Now the list gathers every node's pending
 * approvals (each tagged with its node, as the process table is gathered), and a decision this node
 * cannot take is offered to the others.
 *
 * Every node answers a decision — decided, or not held — as every node answers an event lookup
 * (event-lookup.ts). Before, only the holder answered: an id nobody held waited out the whole wait
 * for its 404, and so did an approval whose holder was slow or cut off — told "already decided or
 * expired" while still pending. Now "every node said not held" is a 404 at once, the holder's
 * answer is the answer, and a node that may hold it and did not answer makes it CLUSTER_UNAVAILABLE
 * (503, retry): never a 404 for an approval that may be pending.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ApprovalBroker, ApprovalOutcome, PendingApproval } from '../approvals/approval-broker.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { GoondanError } from '../../shared/errors/index.ts';
import { RecentMap } from '../../shared/recent-map.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { messageJson } from './kv-json.ts';
import { gatherNodeAnswers, serveNodeItems } from './node-gather.ts';
import { serveRequests } from './serve-requests.ts';

type Decision = ApprovalOutcome;

/**
 * Every node answers in a round trip, but on a loaded node that round trip took over a second. Only
 * a decision some node does not answer waits this long (for its 503): the others end when the last
 * answer comes.
 */
export const DECIDE_WAIT_MS = 5_000;
/** Decisions this node took for other nodes, remembered for a retry whose first answer came too late. */
const MAX_DECISIONS_REMEMBERED = 1_000;

const isApproval = (item: JsonObject): item is JsonObject & { id: string } => typeof item.id === 'string';
const isDecisionRequest = compiledValidator<{ id: string; decision: Decision }>({
  schema: {
    type: 'object',
    required: ['id', 'decision'],
    properties: {
      id: { type: 'string', minLength: 1 },
      decision: {
        type: 'object',
        required: ['approved', 'scope', 'decidedBy', 'reason'],
        properties: { approved: { type: 'boolean' }, scope: { enum: ['once', 'session'] }, decidedBy: { type: 'string' }, reason: { type: 'string' } },
      },
    },
  },
});

/** A node's answer to a decision: it took it (it holds the approval), or it does not hold it. */
const isDecisionAnswer = compiledValidator<{ node: string; decided: boolean }>({
  schema: { type: 'object', required: ['node', 'decided'], properties: { node: { type: 'string', minLength: 1 }, decided: { type: 'boolean' } } },
});

export interface ClusterApprovalsOptions {
  nc: NatsConnection;
  subjects: { list: string; decide: string };
  nodeId: string;
  /**
   * The nodes that may hold a pending approval: the live ones, and any still named by a partition
   * lease (one that stopped answering holds its approvals until its partitions are taken over).
   */
  members(): string[];
  logger: RootLogger;
}

export class ClusterApprovals {
  /** Decisions this node took for other nodes: approval id → `approved/scope`. */
  private readonly decidedHere = new RecentMap<string, string>(MAX_DECISIONS_REMEMBERED);

  constructor(private readonly options: ClusterApprovalsOptions) {}

  /** Every node's pending approvals, each with its `node`; this node's alone when the gathering did not go round. */
  async list(local: () => PendingApproval[]): Promise<JsonObject[]> {
    const { nc, subjects, nodeId, logger } = this.options;
    const gathered = (await gatherNodeAnswers(nc, subjects.list, nodeId, isApproval, logger, { members: this.options.members() }))?.items;
    return gathered ?? local().map((approval) => ({ ...approval, node: nodeId }));
  }

  /**
   * The decision for an approval another node holds: true once the holder took it, false when every
   * node said it holds no such pending approval. Throws CLUSTER_UNAVAILABLE when a node that may
   * hold it did not answer (or this node cannot reach NATS).
   */
  async decide(id: string, decision: Decision): Promise<boolean> {
    const { nc, subjects, nodeId, logger } = this.options;
    const members = new Set([...this.options.members(), nodeId]);
    const answered = new Set<string>();
    let failure: unknown;
    try {
      const replies = await nc.requestMany(subjects.decide, JSON.stringify({ id, decision }), { strategy: 'count', maxMessages: members.size, maxWait: DECIDE_WAIT_MS });
      for await (const reply of replies) {
        const answer = messageJson(reply);
        if (!isDecisionAnswer(answer)) {
          logger.warn({ subject: subjects.decide }, 'dropped a malformed answer to an approval decision from another node');
          continue;
        }
        if (answer.decided) return true;
        answered.add(answer.node);
      }
    } catch (error) {
      failure = error;
    }
    if (!answered.has(nodeId)) {
      const why = failure instanceof Error ? failure.message : 'no answer came back';
      throw pendingUnknown(id, `this node cannot reach the rest of the cluster over NATS (${why})`, [...members].filter((node) => node !== nodeId));
    }
    const silent = [...members].filter((node) => !answered.has(node)).sort();
    if (silent.length === 0) return false;
    throw pendingUnknown(id, `node${silent.length > 1 ? 's' : ''} ${silent.join(', ')}, which may hold it, did not answer within ${DECIDE_WAIT_MS / 1000} s`, silent);
  }

  /**
   * Answers the list with this node's pending approvals, and every decision: taken here, or not held
   * here. Both wait for `loaded`: the approvals of partitions being taken over here (their instances
   * restored at takeover, partition-owner.ts), so that "not held" never means "not loaded yet".
   */
  serve(broker: ApprovalBroker, loaded: () => Promise<void>): Subscription[] {
    const { nc, subjects, nodeId, logger } = this.options;
    return [
      serveNodeItems(nc, subjects.list, nodeId, async () => loaded().then(() => broker.list()), logger),
      serveRequests(nc, subjects.decide, isDecisionRequest, logger, (request, msg) => {
        void loaded().then(() => {
          const asked = `${request.decision.approved}/${request.decision.scope}`;
          let decided = broker.decide(request.id, request.decision);
          if (decided) this.decidedHere.set(request.id, asked);
          // A retry of a decision taken here whose answer reached its node too late (its caller got 503): it stands.
          else decided = this.decidedHere.get(request.id) === asked;
          msg.respond(JSON.stringify({ node: nodeId, decided }));
        });
      }),
    ];
  }
}

function pendingUnknown(id: string, why: string, silent: string[]): GoondanError {
  return new GoondanError('CLUSTER_UNAVAILABLE', 'system', `whether approval '${id}' is still pending is unknown here: ${why}`, {
    suggestion: 'send the decision again shortly (that node may be busy, restarting, or its partitions being taken over); see GET /v1/approvals',
    details: { approvalId: id, silent },
  });
}
