/**
 * The tool's own verdict on one call (seed 004 §6.2): its module's `evaluatePolicy(args, ctx)`,
 * evaluated at most once per call (the permission middleware and the engine's gate share it) on
 * the arguments with their schema defaults. A check that throws, answers nonsense or takes longer
 * than 10 s cannot vouch for the call: it asks.
 */
import { errorMessageOf } from '../../shared/errors/index.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { Logger, ToolPolicyVerdict } from '../../shared/types/tools.ts';
import { argsWithDefaults } from './args-validation.ts';
import type { RegisteredTool } from './tool-registry.ts';

const EVALUATE_TIMEOUT_MS = 10_000;
/** A preview longer than this is cut: it is read by a person at a prompt. */
export const MAX_PREVIEW_CHARS = 8000;
const ACTIONS = new Set(['allow', 'ask', 'deny']);

export interface VerdictCall {
  agentName: string;
  instanceKey: string;
  toolName: string;
  workdir: () => string;
  /** The arguments as the first asker sees them. */
  args: () => JsonObject;
}

/** `ctx.toolVerdict` of one call: memoised, never rejects. */
export function toolVerdictOnce(tool: RegisteredTool | undefined, call: VerdictCall, logger: Logger): () => Promise<ToolPolicyVerdict | undefined> {
  let verdict: Promise<ToolPolicyVerdict | undefined> | undefined;
  return () => (verdict ??= evaluate(tool, call, logger));
}

async function evaluate(tool: RegisteredTool | undefined, call: VerdictCall, logger: Logger): Promise<ToolPolicyVerdict | undefined> {
  const evaluatePolicy = tool?.evaluatePolicy;
  if (!tool || !evaluatePolicy) return undefined;
  const { args } = argsWithDefaults(tool.item.parameters, call.args());
  const context = { agentName: call.agentName, instanceKey: call.instanceKey, toolName: call.toolName, exportName: tool.exportName, workdir: call.workdir(), config: tool.config };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer: unknown = await Promise.race([
      Promise.resolve().then(() => evaluatePolicy(args, context)),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${EVALUATE_TIMEOUT_MS} ms`)), EVALUATE_TIMEOUT_MS);
      }),
    ]);
    return verdictOf(answer);
  } catch (error) {
    logger.warn({ code: 'E_TOOL_POLICY_CHECK', toolName: call.toolName, err: error }, "the tool's own policy check failed; the call needs approval");
    return { action: 'ask', reason: `the tool's own permission check failed (${errorMessageOf(error)})` };
  } finally {
    clearTimeout(timer);
  }
}

function verdictOf(answer: unknown): ToolPolicyVerdict | undefined {
  if (answer === undefined || answer === null) return undefined;
  if (typeof answer !== 'object') throw new Error(`evaluatePolicy returned ${typeof answer}, not {action?, reason?, preview?}`);
  const action: unknown = Reflect.get(answer, 'action');
  const reason: unknown = Reflect.get(answer, 'reason');
  const preview: unknown = Reflect.get(answer, 'preview');
  if (action !== undefined && (typeof action !== 'string' || !ACTIONS.has(action))) throw new Error(`evaluatePolicy returned action ${JSON.stringify(action)}; use allow, ask or deny`);
  const verdict: ToolPolicyVerdict = {};
  if (action === 'allow' || action === 'ask' || action === 'deny') verdict.action = action;
  if (typeof reason === 'string' && reason !== '') verdict.reason = reason;
  if (typeof preview === 'string' && preview !== '') verdict.preview = preview.length > MAX_PREVIEW_CHARS ? `${preview.slice(0, MAX_PREVIEW_CHARS)}\n… (preview cut at ${MAX_PREVIEW_CHARS} characters)` : preview;
  return verdict;
}
