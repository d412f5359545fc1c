/**
 * Tool calls waiting for a human (tool permission policy, `ask`). A request is shown to the person
 * at the terminal (interactive `cli` connector) and/or held for `POST /v1/approvals/{id}` (when
 * GOONDAN_APPROVALS=http); the first decision wins, no decision in time is a deny, and with no
 * approver at all the request is denied at once, saying why.
 */
import type { ApprovalDisplay, ApprovalPrompt } from '../../shared/ipc/control-protocol.ts';
import { newId } from '../../shared/ids.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ApprovalDecision } from '../../shared/types/extensions.ts';
import type { JsonObject } from '../../shared/types/json.ts';

/** A tool call waiting for a human: what `GET /v1/approvals` lists and the terminal prompt shows. */
export type PendingApproval = ApprovalPrompt;

const DISPLAY_KEYS = ['summary', 'displayName', 'icon', 'preview'] as const;

export type ApprovalOutcome = ApprovalDecision & { reason: string };

export interface ApprovalBrokerOptions {
  logger: RootLogger;
  /** Whether decisions may come through the HTTP API (GOONDAN_APPROVALS=http). */
  httpApprovals: boolean;
  /** Shows the approval at an interactive terminal; false when there is none. */
  promptInteractive(approval: PendingApproval): boolean;
}

export const NO_APPROVER_REASON =
  'no approver is configured for this run: start goondan in a terminal to answer at the prompt, or set GOONDAN_APPROVALS=http and decide with POST /v1/approvals/{id}';

interface Entry {
  approval: PendingApproval;
  processKey: string;
  answer(outcome: ApprovalOutcome): void;
  timer: ReturnType<typeof setTimeout>;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Entry>();

  constructor(private readonly options: ApprovalBrokerOptions) {}

  open(
    request: ApprovalDisplay & { agent: string; instanceKey: string; toolName: string; toolCallId: string; args: JsonObject; reason: string; processKey: string },
    timeoutMs: number,
    answer: (outcome: ApprovalOutcome) => void,
  ): void {
    const now = Date.now();
    const approval: PendingApproval = {
      id: newId('appr'),
      agent: request.agent,
      instanceKey: request.instanceKey,
      toolName: request.toolName,
      toolCallId: request.toolCallId,
      args: request.args,
      reason: request.reason,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
    };
    // The summary, display name, icon and the tool's preview are what a person reads first (issue 17).
    for (const key of DISPLAY_KEYS) {
      const value = request[key];
      if (value !== undefined) approval[key] = value;
    }
    const prompted = this.options.promptInteractive(approval);
    if (!prompted && !this.options.httpApprovals) {
      this.options.logger.warn({ agent: request.agent, toolName: request.toolName }, 'approval needed but nobody can approve; denied');
      answer({ approved: false, scope: 'once', decidedBy: 'no-approver', reason: NO_APPROVER_REASON });
      return;
    }
    const timer = setTimeout(() => this.finish(approval.id, { approved: false, scope: 'once', decidedBy: 'timeout', reason: `nobody answered within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
    this.pending.set(approval.id, { approval, processKey: request.processKey, answer, timer });
    this.options.logger.info({ approvalId: approval.id, agent: request.agent, toolName: request.toolName, prompted }, 'tool call waits for approval');
  }

  list(): PendingApproval[] {
    return [...this.pending.values()].map((e) => e.approval);
  }

  /** Returns false for an unknown (or already decided) id. */
  decide(id: string, outcome: ApprovalOutcome): boolean {
    return this.finish(id, outcome);
  }

  /** The asking process is gone: its approvals can no longer be answered. */
  dropFor(processKey: string): void {
    for (const [id, entry] of this.pending) {
      if (entry.processKey !== processKey) continue;
      clearTimeout(entry.timer);
      this.pending.delete(id);
    }
  }

  clear(): void {
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
    this.pending.clear();
  }

  private finish(id: string, outcome: ApprovalOutcome): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    clearTimeout(entry.timer);
    this.pending.delete(id);
    this.options.logger.info({ approvalId: id, approved: outcome.approved, decidedBy: outcome.decidedBy, scope: outcome.scope }, 'approval decided');
    entry.answer(outcome);
    return true;
  }
}
