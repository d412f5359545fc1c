/**
 * What one compaction does (pure). Nothing happens while the conversation is within maxMessages
 * and maxCharacters. Past either limit, everything older than the retained tail (the last
 * `retainLastMessages`, widened so a tool call keeps its results) is compacted, except protected
 * messages (pinned, system prompt, current input — message-integrity.ts) and the summary:
 * - `remove`: all of it is removed, so the conversation drops well below the limit and the next
 *   compaction is many turns away;
 * - `truncate`: its long messages are shortened, oldest first, while the characters are over the
 *   limit; whole units are removed, oldest first, only while a limit is still exceeded.
 * Removed messages are counted into the one summary (compaction-summary.ts): an existing summary
 * is replaced in place, otherwise the summary takes the place of the oldest removed message.
 */
import type { Message, MessageEvent } from '../../../../shared/types/messages.ts';
import { isProtected, messageUnits, selectRemovals } from '../message-integrity.ts';
import { truncationLength, type MessageCompactionConfig } from './compaction-config.ts';
import { isSummary, readSummaryCounts, summaryMessage, summaryText, type SummaryCounts } from './compaction-summary.ts';
import { messageCharacters } from './message-size.ts';
import { isTruncated, truncateMessage } from './truncate-message.ts';

export interface CompactionPlan {
  /** In order: shortened messages, the summary, removals. */
  events: MessageEvent[];
  removed: number;
  shortened: number;
  /** Size of the conversation after the events. */
  after: { messages: number; characters: number };
  /** Still over a limit: what is left is protected or retained. */
  overLimit: boolean;
}

export interface CompactionInput {
  config: MessageCompactionConfig;
  inputEventId: string;
  extensionName: string;
}

/** undefined when the conversation is within both limits. */
export function planCompaction(messages: readonly Message[], input: CompactionInput): CompactionPlan | undefined {
  const { config } = input;
  const sizes = new Map(messages.map((message) => [message.id, messageCharacters(message.data)]));
  if (messages.length <= config.maxMessages && sum(sizes.values()) <= config.maxCharacters) return undefined;

  const summaries = messages.filter(isSummary);
  const existing = summaries[0];
  // A second summary (another writer, an old copy) goes: there is only ever one.
  const extraSummaries = new Set(summaries.slice(1).map((message) => message.id));
  const tailStart = retainedTailStart(messages, config.retainLastMessages);
  const keep = (message: Message, index: number): boolean => index >= tailStart || isSummary(message) || isProtected(message, input.inputEventId);
  const shortened = new Map<string, Message>();
  const tally = new Tally(readSummaryCounts(existing), existing !== undefined);
  for (const message of messages) if (!isSummary(message)) tally.add(message, sizes.get(message.id) ?? 0);

  if (config.mode === 'truncate') {
    const limit = truncationLength(config);
    for (let index = 0; index < tailStart; index++) {
      const message = messages[index];
      if (message === undefined || keep(message, index)) continue;
      if (tally.total().characters <= config.maxCharacters) break;
      const cut = truncateMessage(message, limit);
      if (cut === undefined) continue;
      const size = messageCharacters(cut.data);
      tally.shorten(message, (sizes.get(message.id) ?? 0) - size);
      shortened.set(message.id, cut);
      sizes.set(message.id, size);
    }
  }
  const removed = selectRemovals(messages, {
    keep,
    enough: () => config.mode === 'truncate' && tally.within(config),
    taken: (unit) => {
      for (const message of unit) tally.remove(message, sizes.get(message.id) ?? 0, shortened.has(message.id));
    },
  });
  for (const id of removed) shortened.delete(id);

  const result = tally.total();
  const events: MessageEvent[] = [];
  for (const message of shortened.values()) events.push({ type: 'replace', targetId: message.id, message });
  let summaryTarget: string | undefined;
  if (removed.size > 0 || shortened.size > 0) {
    if (existing !== undefined) summaryTarget = existing.id;
    else if (removed.size > 0) summaryTarget = messages.find((message) => removed.has(message.id))?.id;
  }
  if (summaryTarget !== undefined) {
    events.push({ type: 'replace', targetId: summaryTarget, message: summaryMessage(tally.counts, input.extensionName, existing?.id) });
  }
  for (const message of messages) {
    if ((removed.has(message.id) || extraSummaries.has(message.id)) && message.id !== summaryTarget) events.push({ type: 'remove', targetId: message.id });
  }
  return {
    events,
    removed: removed.size,
    shortened: shortened.size,
    after: result,
    overLimit: !tally.within(config),
  };
}

/**
 * The conversation as planned so far — messages, characters, summary counts — kept as running
 * totals, so planning stays linear however many messages a compaction takes.
 */
class Tally {
  private messages = 0;
  private characters = 0;
  readonly counts: SummaryCounts;

  constructor(
    previous: SummaryCounts,
    private summaryPresent: boolean,
  ) {
    this.counts = { removed: { ...previous.removed }, shortened: 0, compactions: previous.compactions + 1 };
  }

  /** A message (not a summary) that is in the conversation now. */
  add(message: Message, size: number): void {
    this.messages++;
    this.characters += size;
    if (isTruncated(message)) this.counts.shortened++;
  }

  shorten(message: Message, savedCharacters: number): void {
    this.characters -= savedCharacters;
    if (!isTruncated(message)) this.counts.shortened++;
  }

  remove(message: Message, size: number, shortenedNow: boolean): void {
    this.messages--;
    this.characters -= size;
    this.counts.removed[message.data.role]++;
    if (shortenedNow || isTruncated(message)) this.counts.shortened--;
    // The first removal brings the summary in (it takes that message's place).
    this.summaryPresent = true;
  }

  /** Size after the plan, the summary included. */
  total(): { messages: number; characters: number } {
    if (!this.summaryPresent) return { messages: this.messages, characters: this.characters };
    return { messages: this.messages + 1, characters: this.characters + summaryText(this.counts).length };
  }

  within(config: Pick<MessageCompactionConfig, 'maxMessages' | 'maxCharacters'>): boolean {
    const total = this.total();
    return total.messages <= config.maxMessages && total.characters <= config.maxCharacters;
  }
}

/** Index where the retained tail begins, moved back so no unit is split by it. */
export function retainedTailStart(messages: readonly Message[], retainLastMessages: number): number {
  let start = Math.max(0, messages.length - retainLastMessages);
  const spans = messageUnits(messages).map((unit) => ({ first: Math.min(...unit.indices), last: Math.max(...unit.indices) }));
  // Moving the start back can make an earlier unit straddle it: repeat until none does.
  for (let moved = true; moved; ) {
    moved = false;
    for (const span of spans) {
      if (span.first < start && span.last >= start) {
        start = span.first;
        moved = true;
      }
    }
  }
  return start;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
