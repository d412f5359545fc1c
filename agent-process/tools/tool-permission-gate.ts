/**
 * The engine's half of tool-defined permissions (seed 004 §6): before a handler runs, the tool's
 * own verdict (`evaluatePolicy`) is enforced whether or not a permission policy is declared — a
 * tool can make a call stricter, never looser. `deny` refuses; `ask` needs a person, unless a
 * permission middleware (tool-policy) already got this call approved (`ctx.approval`) or the
 * person allowed the tool for the session; with nobody to ask, `ask` is a deny that says so.
 */
import type { ApprovalDecision, ApprovalRequest, ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { Logger, ToolError } from '../../shared/types/tools.ts';
import { toolDeniedError } from './tool-errors.ts';

export interface Approver {
  request(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/** As tool-policy's default `askTimeoutSeconds`. */
export const DEFAULT_ASK_TIMEOUT_MS = 300_000;

export class ToolPermissionGate {
  /** "Always for this session" answers to the engine's own asks, per tool name. */
  private readonly sessionAllowed = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly approver?: Approver,
    private readonly askTimeoutMs: number = DEFAULT_ASK_TIMEOUT_MS,
  ) {}

  /** A refusal, or undefined when the call may run. */
  async check(ctx: ToolCallMiddlewareContext): Promise<ToolError | undefined> {
    const verdict = await ctx.toolVerdict();
    const action = verdict?.action ?? 'allow';
    if (action === 'allow') return undefined;
    const why = verdict?.reason ?? (action === 'deny' ? 'the tool refuses this call' : 'the tool asks for approval of this call');
    if (action === 'deny') {
      this.logger.info({ toolName: ctx.toolName, toolCallId: ctx.toolCallId, reason: why }, "tool call denied by the tool's own check");
      return toolDeniedError(ctx.toolName, `is denied by the tool itself: ${why}.`, 'Do not retry this call; choose another approach or ask the user.');
    }
    if (ctx.approval?.approved === true || this.sessionAllowed.has(ctx.toolName)) return undefined;
    if (!this.approver) {
      return toolDeniedError(ctx.toolName, `needs approval (${why}), but this agent has no approver; treated as deny.`, 'Ask the user to run goondan interactively or with GOONDAN_APPROVALS=http.');
    }
    const request: ApprovalRequest = { toolName: ctx.toolName, toolCallId: ctx.toolCallId, args: ctx.args, reason: `the tool's own check: ${why}`, timeoutMs: this.askTimeoutMs, ...ctx.display };
    if (verdict?.preview !== undefined) request.preview = verdict.preview;
    this.logger.info({ toolName: ctx.toolName, toolCallId: ctx.toolCallId, reason: why }, 'tool call waits for approval (the tool asks)');
    const decision = await this.approver.request(request);
    this.logger.info({ toolName: ctx.toolName, toolCallId: ctx.toolCallId, approved: decision.approved, decidedBy: decision.decidedBy, scope: decision.scope }, 'approval decided');
    if (decision.approved) {
      if (decision.scope === 'session') this.sessionAllowed.add(ctx.toolName);
      return undefined;
    }
    const more = decision.reason ? ` ${decision.reason}` : '';
    return toolDeniedError(
      ctx.toolName,
      `was not approved (${decision.decidedBy}); the tool asked for approval: ${why}.${more}`,
      decision.decidedBy === 'no-approver' ? 'Nobody can approve tool calls in this run; do the work without this tool or report back.' : 'The user declined this call; do not retry it unchanged.',
    );
  }
}
