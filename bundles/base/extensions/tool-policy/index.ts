/**
 * `tool-policy`: allow / ask / deny for every tool call — config, extension and MCP tools alike,
 * because it is a `toolCall` middleware (outermost, so nothing runs before the decision).
 * `deny` → an `E_TOOL_DENIED` ToolResult naming the rule; `ask` → a human decides through the
 * terminal or `POST /v1/approvals/{id}`; no answer in time, or nobody to ask, is a deny that says so.
 * The tool's own verdict (its module's `evaluatePolicy`) counts when it is stricter, and its
 * preview and the call's summary go to the person asked.
 * Attached automatically by the config plane from `Swarm.spec.policy.tools` + `Agent.spec.toolPolicy`.
 */
import type { ExtensionApi, JsonObject, ToolPolicyVerdict, ToolResult } from '../../../../shared/types/index.ts';
import { SHELL_OPERATORS } from './command-patterns.ts';
import { canonicalJson } from '../../../../shared/canonical-json.ts';
import { readPolicyConfig } from './policy-config.ts';
import { COMMAND_LIKE, type Policy, type Verdict, evaluate, needsShellParser } from './policy-rules.ts';
import { ShellAnalyzer } from './shell-analysis.ts';
import { loadShellParser } from './shell-parser.ts';

const DEFAULT_ASK_TIMEOUT_SECONDS = 300;
/** Runs before every other toolCall middleware. */
const PRIORITY = -1000;

function denied(toolCallId: string, toolName: string, message: string, suggestion: string): ToolResult {
  return { toolCallId, toolName, status: 'error', error: { code: 'E_TOOL_DENIED', category: 'user', name: 'ToolDeniedError', message, suggestion } };
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** The policy's verdict, or the tool's own when that is stricter. */
function stricter(policy: Verdict, own: ToolPolicyVerdict | undefined): Verdict {
  if (!own?.action || RANK[own.action] <= RANK[policy.action]) return policy;
  const why = own.reason ?? (own.action === 'deny' ? 'it refuses this call' : 'it asks for approval of this call');
  return { action: own.action, explanation: `the tool's own check: ${why}` };
}

/** Allow patterns are matched per command, so one spelling out `&&` or `|` could never match: say so at start. */
function checkAllowPatterns(policy: Policy): void {
  policy.rules.forEach((rule, index) => {
    if (rule.action !== 'allow') return;
    for (const [key, pattern] of Object.entries(rule.args ?? {})) {
      if (COMMAND_LIKE.test(key) && SHELL_OPERATORS.test(pattern)) {
        throw new Error(
          `tool-policy config is invalid: rules[${index}].args.${key} "${pattern}" spells shell operators, but allow patterns are matched against each command of a line; write one allow rule per command (e.g. "git *" and "ls *").`,
        );
      }
    }
  });
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const raw = readPolicyConfig(config);
  const policy: Policy = { default: raw.default, rules: raw.rules };
  checkAllowPatterns(policy);
  const timeoutMs = (raw.askTimeoutSeconds ?? DEFAULT_ASK_TIMEOUT_SECONDS) * 1000;
  // "Always for this session" approvals, for the life of this agent process: of the same call (tool
  // and arguments). Per tool name, approving `touch x` approved `… | base64 -d | sh` after it.
  const sessionAllowed = new Set<string>();
  const sessionKey = (toolName: string, args: JsonObject) => `${toolName}\u0000${canonicalJson(args)}`;
  // The bash grammar loads on the first call that a command rule judges, so other agents never pay for it.
  let analyzer: Promise<ShellAnalyzer | undefined> | undefined;
  const shellAnalyzer = () =>
    (analyzer ??= loadShellParser().then(
      (parser) => new ShellAnalyzer(parser),
      (error: unknown) => {
        api.logger.error({ err: error }, 'the shell parser could not be loaded; command lines under command rules will need approval');
        analyzer = undefined;
        return undefined;
      },
    ));

  api.pipeline.register(
    'toolCall',
    async (ctx) => {
      const shell = needsShellParser(policy, ctx.toolName, ctx.args) ? await shellAnalyzer() : undefined;
      const own = await ctx.toolVerdict();
      // The tool's own check can make a call stricter, never looser (seed 004 §6.3).
      const verdict = stricter(evaluate(policy, ctx.toolName, ctx.args, ctx.catalogItem?.readOnly === true, shell), own);
      if (verdict.action === 'allow') return ctx.next();
      if (verdict.action === 'deny') {
        api.logger.info({ toolName: ctx.toolName, toolCallId: ctx.toolCallId, rule: verdict.explanation }, 'tool call denied by policy');
        return denied(ctx.toolCallId, ctx.toolName, `${ctx.toolName} is denied: ${verdict.explanation}.`, 'Do not retry this call; choose another approach or ask the user.');
      }
      if (sessionAllowed.has(sessionKey(ctx.toolName, ctx.args))) {
        ctx.approval = { approved: true, scope: 'session', decidedBy: 'session' };
        return ctx.next();
      }
      if (!api.approvals) {
        return denied(
          ctx.toolCallId,
          ctx.toolName,
          `${ctx.toolName} needs approval (${verdict.explanation}), but this agent has no approver; treated as deny.`,
          'Ask the user to run goondan interactively or with GOONDAN_APPROVALS=http.',
        );
      }
      api.logger.info({ toolName: ctx.toolName, toolCallId: ctx.toolCallId, rule: verdict.explanation }, 'tool call waits for approval');
      const decision = await api.approvals.request({
        toolName: ctx.toolName,
        toolCallId: ctx.toolCallId,
        args: ctx.args,
        reason: verdict.explanation,
        timeoutMs,
        ...ctx.display,
        ...(own?.preview !== undefined ? { preview: own.preview } : {}),
      });
      api.logger.info({ toolName: ctx.toolName, toolCallId: ctx.toolCallId, approved: decision.approved, decidedBy: decision.decidedBy, scope: decision.scope }, 'approval decided');
      if (decision.approved) {
        if (decision.scope === 'session') sessionAllowed.add(sessionKey(ctx.toolName, ctx.args));
        // The person saw the tool's own reason and preview: the engine's gate must not ask again.
        ctx.approval = decision;
        return ctx.next();
      }
      const why = decision.reason ? ` ${decision.reason}` : '';
      return denied(
        ctx.toolCallId,
        ctx.toolName,
        `${ctx.toolName} was not approved (${decision.decidedBy}); approval was needed: ${verdict.explanation}.${why}`,
        decision.decidedBy === 'no-approver' ? 'Nobody can approve tool calls in this run; do the work without this tool or report back.' : 'The user declined this call; do not retry it unchanged.',
      );
    },
    { priority: PRIORITY },
  );
}
