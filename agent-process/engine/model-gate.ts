/**
 * Admission of model calls (Swarm.spec.policy.budget, Model.spec.rateLimit): when a budget or a
 * rate limit applies to the agent, every call is admitted by the orchestrator first — which sees
 * every agent — and released when it ends, with its usage. Without a gate a call just runs.
 */
import type { ModelMessage } from 'ai';
import { priceUsage } from '../../shared/usage/price-usage.ts';
import type { ModelPlan } from '../../shared/types/bundle.ts';
import type { Cost, TokenUsage } from '../../shared/types/turns.ts';

export interface ModelGate {
  /** Resolves with an admission id once the call may go; throws a GoondanError (BUDGET_EXCEEDED, …) when refused. */
  admit(request: { traceId: string; estimatedInputTokens: number }): Promise<string>;
  /** The admitted call ended; `usage` when the model answered. Never throws. */
  release(admissionId: string, outcome: { stepId: string; usage?: TokenUsage; cost?: Cost }): void;
  /** The provider answered 429 with Retry-After. Never throws. */
  throttled(retryAfterMs: number): void;
}

export interface GatedCall {
  traceId: string;
  stepId: string;
  messages: readonly ModelMessage[];
}

/** Runs `call` inside an admission when there is a gate; the release carries the answer's usage and cost. */
export async function gatedModelCall<T extends { usage?: TokenUsage }>(
  gate: ModelGate | undefined,
  model: ModelPlan,
  request: GatedCall,
  call: () => Promise<T>,
): Promise<T> {
  if (!gate) return call();
  const admissionId = await gate.admit({ traceId: request.traceId, estimatedInputTokens: estimateInputTokens(request.messages) });
  let usage: TokenUsage | undefined;
  try {
    const answer = await call();
    usage = answer.usage;
    return answer;
  } finally {
    const cost = priceUsage(model.pricing, usage);
    gate.release(admissionId, { stepId: request.stepId, ...(usage ? { usage } : {}), ...(cost ? { cost } : {}) });
  }
}

/** About four characters a token: enough to tell whether a budget still covers the call's input. */
export function estimateInputTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}
