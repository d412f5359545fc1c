/** Usage totals as the API shows them (GET /v1/processes, GET /v1/usage): JSON, costs by currency. */
import type { UsageTotals } from '../../shared/usage/usage-totals.ts';

export interface UsageRow {
  [key: string]: number | Record<string, number>;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens: number;
  /** promptTokens + completionTokens (what budgets count). */
  tokens: number;
  cost: Record<string, number>;
}

export function usageRow(totals: UsageTotals | undefined): UsageRow {
  const t = totals ?? { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0, cost: {} };
  return {
    calls: t.calls,
    promptTokens: t.promptTokens,
    completionTokens: t.completionTokens,
    cachedPromptTokens: t.cachedPromptTokens,
    tokens: t.promptTokens + t.completionTokens,
    cost: { ...t.cost },
  };
}
