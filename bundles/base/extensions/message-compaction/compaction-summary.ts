/**
 * The one counts-only summary of what compaction took away (SPEC.md §3.1 `compaction.summary`):
 * a user message — the role every provider accepts anywhere in a conversation, unlike `system` —
 * that sits where the removed history began and is replaced, never stacked, on later compactions.
 * Its metadata carries the running totals; no model is asked to summarise anything.
 */
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';
import type { Message } from '../../../../shared/types/messages.ts';

export const SUMMARY_KEY = 'compaction.summary';

export interface RemovedCounts {
  user: number;
  assistant: number;
  tool: number;
  system: number;
}

export interface SummaryCounts {
  /** Messages removed by every compaction so far, by role. */
  removed: RemovedCounts;
  /** Messages of the current conversation that are shown shortened. */
  shortened: number;
  /** How many compactions changed the conversation. */
  compactions: number;
}

export function isSummary(message: Message): boolean {
  return message.metadata[SUMMARY_KEY] !== undefined;
}

export function emptyCounts(): SummaryCounts {
  return { removed: { user: 0, assistant: 0, tool: 0, system: 0 }, shortened: 0, compactions: 0 };
}

/** The totals an earlier summary recorded (zeros when there is none or it is unreadable). */
export function readSummaryCounts(summary: Message | undefined): SummaryCounts {
  const counts = emptyCounts();
  const stored = summary === undefined ? undefined : objectOf(summary.metadata[SUMMARY_KEY]);
  if (stored === undefined) return counts;
  const removed = objectOf(stored.removed);
  for (const role of ['user', 'assistant', 'tool', 'system'] as const) counts.removed[role] = numberOf(removed?.[role]);
  counts.shortened = numberOf(stored.shortened);
  counts.compactions = numberOf(stored.compactions);
  return counts;
}

export function totalRemoved(counts: SummaryCounts): number {
  return counts.removed.user + counts.removed.assistant + counts.removed.tool + counts.removed.system;
}

export function summaryText(counts: SummaryCounts): string {
  const roles: Array<[number, string]> = [
    [counts.removed.user, 'from the user'],
    [counts.removed.assistant, 'from the assistant'],
    [counts.removed.tool, 'tool results'],
    [counts.removed.system, 'system'],
  ];
  const byRole = roles
    .filter(([count]) => count !== 0)
    .map(([count, label]) => `${count} ${label}`)
    .join(', ');
  const removed = totalRemoved(counts);
  const parts = [`[conversation compacted] ${removed} earlier ${removed === 1 ? 'message was' : 'messages were'} removed to stay within the context limits (${byRole || 'none'}).`];
  if (counts.shortened > 0) parts.push(`${counts.shortened} older ${counts.shortened === 1 ? 'message is' : 'messages are'} shown shortened.`);
  parts.push('This note stands in for them; their content is no longer available.');
  return parts.join(' ');
}

/** The summary message; `id` keeps the identity of the summary it replaces. */
export function summaryMessage(counts: SummaryCounts, extensionName: string, id?: string): Message {
  const metadata: JsonObject = {
    removed: { ...counts.removed },
    shortened: counts.shortened,
    compactions: counts.compactions,
  };
  return {
    id: id ?? `msg_compaction_${crypto.randomUUID()}`,
    data: { role: 'user', content: summaryText(counts) },
    metadata: { [SUMMARY_KEY]: metadata },
    createdAt: new Date().toISOString(),
    source: { type: 'extension', extensionName },
  };
}

function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

function numberOf(value: JsonValue | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
