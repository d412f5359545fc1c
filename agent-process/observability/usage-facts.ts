/**
 * What step.completed and turn.completed say about a model's usage beyond its tokens: which Model
 * answered and, when the Model has pricing, what it cost (Model.spec.pricing). A turn uses one
 * Model, so its cost is the price of its summed usage.
 */
import type { ModelPlan } from '../../shared/types/bundle.ts';
import type { Cost, TokenUsage } from '../../shared/types/turns.ts';
import { priceUsage } from '../../shared/usage/price-usage.ts';

export function usageFacts(model: ModelPlan, usage: TokenUsage | undefined): { model: string; cost?: Cost } {
  return { model: model.name, ...turnCost(model, usage) };
}

export function turnCost(model: ModelPlan, usage: TokenUsage | undefined): { cost?: Cost } {
  const cost = priceUsage(model.pricing, usage);
  return cost ? { cost } : {};
}
