/** `GET /v1/approvals` and `POST /v1/approvals/{id}` for the HTTP API. */
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { errorResponse, jsonResponse } from '../http/http-errors.ts';
import { readJsonBody } from '../http/request-body.ts';
import type { ApiRoute } from '../http/api-server.ts';
import type { ApprovalBroker, ApprovalOutcome, PendingApproval } from './approval-broker.ts';
import type { JsonObject } from '../../shared/types/json.ts';

const validateDecision = compiledValidator<{ decision: 'approve' | 'deny'; scope?: 'once' | 'session'; reason?: string }>({
  options: { allErrors: true, strict: false },
  schema: {
    type: 'object',
    required: ['decision'],
    additionalProperties: false,
    properties: {
      decision: { enum: ['approve', 'deny'] },
      scope: { enum: ['once', 'session'] },
      reason: { type: 'string', maxLength: 2000 },
    },
  },
});

/** Cluster mode: approvals other nodes hold (cluster-approvals.ts). */
export interface OtherNodesApprovals {
  list(local: () => PendingApproval[]): Promise<JsonObject[]>;
  /** False when no node holds it pending; throws CLUSTER_UNAVAILABLE when that is unknown (a node did not answer). */
  decide(id: string, decision: ApprovalOutcome): Promise<boolean>;
}

export function approvalRoutes(broker: ApprovalBroker, onMalformedBody: () => void = () => {}, cluster?: OtherNodesApprovals): ApiRoute[] {
  return [
    {
      method: 'GET',
      pattern: /^\/v1\/approvals$/,
      handle: async () => jsonResponse(200, { approvals: cluster ? await cluster.list(() => broker.list()) : broker.list() }),
    },
    {
      method: 'POST',
      // Approval ids are nanoid-based (`appr_…`): URL-safe, no decoding needed.
      pattern: /^\/v1\/approvals\/([A-Za-z0-9_-]+)$/,
      handle: async (request: Request, match: RegExpMatchArray) => {
        const body = await readJsonBody(request, validateDecision, onMalformedBody, { example: '{"decision": "approve", "scope": "once"}' });
        if (!body.ok) return body.response;
        const id = match[1] ?? '';
        const approved = body.value.decision === 'approve';
        const scope = body.value.scope ?? 'once';
        const decision: ApprovalOutcome = { approved, scope, decidedBy: 'http', reason: body.value.reason ?? '' };
        // A node that may hold it and did not answer throws CLUSTER_UNAVAILABLE: the server answers
        // that as every runtime error, 503 with Retry-After — "retry", never a 404.
        const decided = broker.decide(id, decision) || (cluster !== undefined && (await cluster.decide(id, decision)));
        if (!decided) return errorResponse(404, 'E_HTTP_UNKNOWN_APPROVAL', `no pending approval '${id}'`, { suggestion: 'it was already decided or expired; see GET /v1/approvals' });
        return jsonResponse(200, { id, approved, scope });
      },
    },
  ];
}
