/**
 * Cluster mode: pending tool approvals on any node. An approval is held by the node whose agent
 * asked; behind a load balancer the person's `GET /v1/approvals` (the studio's list) reached another
 * node and showed nothing, and their decision got 404. Now the list gathers every node's pending
 * approvals (each tagged with its node, as the process table is gathered), and a decision this node
 * cannot take is offered to the others: the holder decides and says so, the rest stay silent.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ApprovalBroker, ApprovalOutcome, PendingApproval } from '../approvals/approval-broker.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { messageJson } from './kv-json.ts';
import { gatherNodeItems, serveNodeItems } from './node-gather.ts';
import { serveRequests } from './serve-requests.ts';

type Decision = ApprovalOutcome;

/**
 * The holder decides in a round trip, but on a loaded node that round trip took over a second: the
 * person was told 404 "already decided or expired" for an approval still pending. Non-holders stay
 * silent, so only an approval no node holds waits this long for its 404.
 */
const DECIDE_WAIT_MS = 5_000;

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

export interface ClusterApprovalsSubjects {
  list: string;
  decide: string;
}

export class ClusterApprovals {
  constructor(
    private readonly nc: NatsConnection,
    private readonly subjects: ClusterApprovalsSubjects,
    private readonly nodeId: string,
    private readonly logger: RootLogger,
  ) {}

  /** Every node's pending approvals, each with its `node`; this node's alone when the gathering did not go round. */
  async list(local: () => PendingApproval[]): Promise<JsonObject[]> {
    const gathered = await gatherNodeItems(this.nc, this.subjects.list, this.nodeId, isApproval, this.logger);
    return gathered ?? local().map((approval) => ({ ...approval, node: this.nodeId }));
  }

  /** The decision for an approval another node holds: true once that node took it. */
  async decide(id: string, decision: Decision): Promise<boolean> {
    try {
      const answer = messageJson(await this.nc.request(this.subjects.decide, JSON.stringify({ id, decision }), { timeout: DECIDE_WAIT_MS }));
      return typeof answer === 'object' && answer !== null && 'decided' in answer && answer.decided === true;
    } catch {
      return false;
    }
  }

  /** Answers the list with this node's pending approvals, and takes the decisions for them. */
  serve(broker: ApprovalBroker): Subscription[] {
    return [
      serveNodeItems(this.nc, this.subjects.list, this.nodeId, async () => broker.list(), this.logger),
      serveRequests(this.nc, this.subjects.decide, isDecisionRequest, this.logger, (request, msg) => {
        if (broker.decide(request.id, request.decision)) msg.respond(JSON.stringify({ decided: true, node: this.nodeId }));
      }),
    ];
  }
}
