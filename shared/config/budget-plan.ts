/**
 * BudgetPlan: `Swarm.spec.policy.budget` with its defaults — `onExceeded: deny`, and as currency of
 * the cost limits the budget's own or else the one the swarm's priced models use. A budget without
 * any limit is no budget (agents then never ask the orchestrator before a call).
 */
import type { BudgetPlan, LoadedBundle, LoadedResource } from '../types/bundle.ts';
import type { BudgetLimit, BudgetPolicy } from '../types/resources.ts';
import { asAgent, asModel, resolveIn } from './plan-resolver.ts';

export function buildBudgetPlan(bundle: LoadedBundle, agents: readonly LoadedResource[], budget: BudgetPolicy | undefined): BudgetPlan | undefined {
  if (!budget) return undefined;
  const plan: BudgetPlan = { onExceeded: budget.onExceeded ?? 'deny' };
  if (hasLimit(budget.perTurn)) plan.perTurn = { ...budget.perTurn };
  if (hasLimit(budget.perInstancePerDay)) plan.perInstancePerDay = { ...budget.perInstancePerDay };
  if (hasLimit(budget.perSwarmPerDay)) plan.perSwarmPerDay = { ...budget.perSwarmPerDay };
  if (!plan.perTurn && !plan.perInstancePerDay && !plan.perSwarmPerDay) return undefined;
  const currency = budget.currency ?? pricedCurrencies(bundle, agents)[0];
  if (currency !== undefined) plan.currency = currency;
  return plan;
}

/** Currencies of the priced models the agents use, in agent order, each once. */
export function pricedCurrencies(bundle: LoadedBundle, agents: readonly LoadedResource[]): string[] {
  const currencies = new Set<string>();
  for (const agent of agents) {
    const spec = asAgent(agent.resource)?.spec;
    if (!spec) continue;
    const model = asModel(resolveIn(bundle, agent, spec.modelConfig.modelRef, ['spec', 'modelConfig', 'modelRef']).target.resource);
    if (model?.spec.pricing) currencies.add(model.spec.pricing.currency);
  }
  return [...currencies];
}

function hasLimit(limit: BudgetLimit | undefined): limit is BudgetLimit {
  return limit !== undefined && (limit.tokens !== undefined || limit.cost !== undefined);
}
