/**
 * `api.approvals` for the tool-policy extension: asks the orchestrator, which holds the request
 * for a human (terminal prompt or `POST /v1/approvals/{id}`) or denies at once when nobody can be asked.
 */
import type { ApprovalDecision, ApprovalRequest } from '../../shared/types/extensions.ts';
import { type ControlChannel, requestControl } from '../../shared/child/control-request.ts';

export interface IpcApprovals {
  request(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** Asks waiting for a decision now. */
  readonly waiting: number;
}

export function createIpcApprovals(control: ControlChannel, currentEventId: () => string | undefined): IpcApprovals {
  let waiting = 0;
  return {
    async request(request) {
      const eventId = currentEventId();
      waiting += 1;
      try {
        // The orchestrator's record counts the timeout from its createdAt; the local wait only guards a lost channel.
        const answer = await requestControl(control, 'runtime.approval.request', { ...request, ...(eventId !== undefined ? { eventId } : {}) }, request.timeoutMs);
        if (answer.ok) return answer.value;
        return { approved: false, scope: 'once', decidedBy: answer.error.code === 'AGENT_REQUEST_TIMEOUT' ? 'timeout' : 'error', reason: answer.error.message };
      } finally {
        waiting -= 1;
      }
    },
    get waiting() {
      return waiting;
    },
  };
}
