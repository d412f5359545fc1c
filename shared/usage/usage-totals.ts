/**
 * Running totals of model usage: tokens by kind and cost by currency (a swarm may price its
 * Models in different currencies, so costs are never summed across them).
 */
import type { Cost, TokenUsage } from '../types/turns.ts';

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens: number;
  /** Amount by ISO 4217 currency code. */
  cost: Record<string, number>;
}

export function emptyTotals(): UsageTotals {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0, cost: {} };
}

export function addToTotals(totals: UsageTotals, usage: TokenUsage, cost: Cost | undefined): void {
  totals.calls += 1;
  totals.promptTokens += usage.promptTokens;
  totals.completionTokens += usage.completionTokens;
  totals.cachedPromptTokens += usage.cachedPromptTokens ?? 0;
  if (cost) totals.cost[cost.currency] = (totals.cost[cost.currency] ?? 0) + cost.amount;
}

/** What budgets count as tokens: input + output. */
export function totalTokens(totals: UsageTotals): number {
  return totals.promptTokens + totals.completionTokens;
}
