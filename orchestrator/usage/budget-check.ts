/**
 * Swarm.spec.policy.budget: would a model call exceed a limit? Counted: what the scope already used
 * (usage ledger), what admitted calls still in flight may use (their estimates), and this call's
 * estimate (its input tokens; their price when the Model is priced in the budget's currency).
 * tokens = input + output tokens.
 */
import type { BudgetPlan } from '../../shared/types/bundle.ts';
import type { BudgetLimit } from '../../shared/types/resources.ts';
import { totalTokens, type UsageTotals } from '../../shared/usage/usage-totals.ts';

export type BudgetScope = 'perTurn' | 'perInstancePerDay' | 'perSwarmPerDay';

/** Tokens and cost in the budget's currency. */
export interface Amounts {
  tokens: number;
  cost: number;
}

export interface BudgetOverrun {
  scope: BudgetScope;
  measure: 'tokens' | 'cost';
  limit: number;
  used: number;
  estimated: number;
  currency?: string;
}

const SCOPE_WORDS: Record<BudgetScope, string> = {
  perTurn: 'this turn (its whole trace, across agents)',
  perInstancePerDay: "this instance key's day",
  perSwarmPerDay: "the swarm's day",
};

export function amountsOf(totals: UsageTotals, currency: string | undefined): Amounts {
  return { tokens: totalTokens(totals), cost: currency ? (totals.cost[currency] ?? 0) : 0 };
}

export function addAmounts(a: Amounts, b: Amounts): Amounts {
  return { tokens: a.tokens + b.tokens, cost: a.cost + b.cost };
}

/** The first limit the call would exceed, or undefined when every limit still covers it. */
export function budgetOverrun(plan: BudgetPlan, used: Record<BudgetScope, Amounts>, estimate: Amounts): BudgetOverrun | undefined {
  for (const scope of ['perTurn', 'perInstancePerDay', 'perSwarmPerDay'] as const) {
    const limit: BudgetLimit | undefined = plan[scope];
    if (!limit) continue;
    const spent = used[scope];
    if (limit.tokens !== undefined && spent.tokens + estimate.tokens > limit.tokens) {
      return { scope, measure: 'tokens', limit: limit.tokens, used: spent.tokens, estimated: estimate.tokens };
    }
    if (limit.cost !== undefined && plan.currency !== undefined && spent.cost + estimate.cost > limit.cost) {
      return { scope, measure: 'cost', limit: limit.cost, used: spent.cost, estimated: estimate.cost, currency: plan.currency };
    }
  }
  return undefined;
}

export function describeOverrun(overrun: BudgetOverrun): string {
  const unit = overrun.measure === 'tokens' ? ' tokens' : ` ${overrun.currency ?? ''}`;
  const round = (n: number) => Number(n.toPrecision(6));
  return (
    `budget ${overrun.scope}.${overrun.measure} (${round(overrun.limit)}${unit}) would be exceeded by this model call: ` +
    `${SCOPE_WORDS[overrun.scope]} used ${round(overrun.used)}${unit}, the call needs about ${round(overrun.estimated)}${unit} more`
  );
}

/** What to do about the limit that was hit: a turn's limit is not lifted by waiting, a day's is. */
export function overrunSuggestion(overrun: BudgetOverrun, onExceeded: 'deny' | 'ask'): string {
  const field = `Swarm.spec.policy.budget.${overrun.scope}.${overrun.measure}`;
  const ask = onExceeded === 'ask' ? '' : ', or set onExceeded: ask to decide per call';
  switch (overrun.scope) {
    case 'perTurn':
      return `this turn and the agent calls it caused used the per-turn limit (waiting does not help); raise ${field} or make the request smaller (fewer steps, a shorter conversation)${ask}`;
    case 'perInstancePerDay':
      return `this instance key used its limit for today; it resets at 00:00 UTC (the next UTC day), or raise ${field}${ask}`;
    case 'perSwarmPerDay':
      return `the swarm used its limit for today; it resets at 00:00 UTC (the next UTC day), or raise ${field}${ask}`;
  }
}
