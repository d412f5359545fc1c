/**
 * The price of a model call from its token usage and the Model's pricing: cached input tokens
 * (part of promptTokens) at the cached price when the Model sets one, the rest of the input at the
 * input price, output at the output price.
 */
import type { ModelPricing } from '../types/resources.ts';
import type { Cost, TokenUsage } from '../types/turns.ts';

const PER_MILLION = 1_000_000;

export function priceUsage(pricing: ModelPricing | undefined, usage: TokenUsage | undefined): Cost | undefined {
  if (!pricing || !usage) return undefined;
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const cachedPrice = pricing.cachedInputPerMillionTokens ?? pricing.inputPerMillionTokens;
  const amount =
    ((usage.promptTokens - cached) * pricing.inputPerMillionTokens + cached * cachedPrice + usage.completionTokens * pricing.outputPerMillionTokens) / PER_MILLION;
  return { amount, currency: pricing.currency };
}
