/**
 * `api.approvals` for the tool-policy extension: asks the orchestrator, which holds the request
 * for a human (terminal prompt or `POST /v1/approvals/{id}`) or denies at once when nobody can be asked.
 */
import { CONTROL } from '../../shared/ipc/control-events.ts';
import type { ApprovalDecision, ApprovalRequest } from '../../shared/types/extensions.ts';
import { type ControlChannel, requestControl } from './control-request.ts';

export function createIpcApprovals(channel: ControlChannel): { request(request: ApprovalRequest): Promise<ApprovalDecision> } {
  return {
    async request(request) {
      const outcome = await requestControl(
        channel,
        CONTROL.approvalRequest,
        { toolName: request.toolName, toolCallId: request.toolCallId, args: request.args, reason: request.reason, timeoutMs: request.timeoutMs },
        request.timeoutMs,
      );
      const result = outcome.result ?? {};
      if (outcome.status !== 'ok') return { approved: false, scope: 'once', decidedBy: outcome.status === 'timeout' ? 'timeout' : 'error', reason: outcome.errorMessage ?? '' };
      return {
        approved: result.approved === true,
        scope: result.scope === 'session' ? 'session' : 'once',
        decidedBy: typeof result.decidedBy === 'string' ? result.decidedBy : 'unknown',
        ...(typeof result.reason === 'string' ? { reason: result.reason } : {}),
      };
    },
  };
}
