/**
 * A step's model usage kept with its assistant message (`metadata.tokenUsage`): a step is reported
 * (`step.completed`, which the orchestrator's usage ledger, budgets and /metrics count) only once
 * its tool calls finished, so a step cut by a crash or a passivation while its tools ran — an
 * approval, an inter-agent reply — lost the usage of a model call that did happen. The resumed turn
 * reports the step from what its message kept.
 */
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import type { TokenUsage } from '../../shared/types/turns.ts';

const KEY = 'tokenUsage';

/** The metadata to keep with the step's assistant message. */
export function usageMetadata(usage: TokenUsage | undefined): JsonObject {
  if (!usage) return {};
  const kept: JsonObject = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, totalTokens: usage.totalTokens };
  if (usage.cachedPromptTokens !== undefined) kept.cachedPromptTokens = usage.cachedPromptTokens;
  return { [KEY]: kept };
}

/** The usage an assistant message kept, if it is well formed. */
export function keptUsage(metadata: Record<string, JsonValue>): TokenUsage | undefined {
  const value = metadata[KEY];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { promptTokens, completionTokens, totalTokens, cachedPromptTokens } = value;
  if (typeof promptTokens !== 'number' || typeof completionTokens !== 'number' || typeof totalTokens !== 'number') return undefined;
  return { promptTokens, completionTokens, totalTokens, ...(typeof cachedPromptTokens === 'number' ? { cachedPromptTokens } : {}) };
}
