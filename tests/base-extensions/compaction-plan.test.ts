/**
 * The pure parts of message-compaction: when it acts, what it keeps, how the one summary is
 * created and replaced, how truncation cuts a message, and how characters are counted.
 */
import { describe, expect, test } from 'bun:test';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import { planCompaction, retainedTailStart } from '../../bundles/base/extensions/message-compaction/compaction-plan.ts';
import type { MessageCompactionConfig } from '../../bundles/base/extensions/message-compaction/compaction-config.ts';
import { summaryMessage, summaryText, emptyCounts, readSummaryCounts } from '../../bundles/base/extensions/message-compaction/compaction-summary.ts';
import { messageCharacters } from '../../bundles/base/extensions/message-compaction/message-size.ts';
import { truncateMessage } from '../../bundles/base/extensions/message-compaction/truncate-message.ts';
import { pairingProblems, textOf } from './helpers/conversation-invariants.ts';
import { assistantCalls, assistantText, systemPrompt, toolResult, userMessage } from './helpers/message-builders.ts';

const config = (over: Partial<MessageCompactionConfig> = {}): MessageCompactionConfig => ({
  maxMessages: 6,
  maxCharacters: 100000,
  retainLastMessages: 2,
  mode: 'remove',
  truncateToCharacters: 0,
  ...over,
});

/** Applies events the way the engine's conversation does (append / replace / remove by id). */
function apply(messages: readonly Message[], events: readonly MessageEvent[]): Message[] {
  let out = [...messages];
  for (const event of events) {
    if (event.type === 'append') out.push(event.message);
    else if (event.type === 'replace') out = out.map((m) => (m.id === event.targetId ? event.message : m));
    else if (event.type === 'remove') out = out.filter((m) => m.id !== event.targetId);
    else out = [];
  }
  return out;
}

const input = userMessage('current question', { eventId: 'evt_now' });
const plan = (messages: readonly Message[], over: Partial<MessageCompactionConfig> = {}) =>
  planCompaction(messages, { config: config(over), inputEventId: 'evt_now', extensionName: 'message-compaction' });

describe('when compaction acts', () => {
  test('within maxMessages and maxCharacters it does nothing', () => {
    expect(plan([systemPrompt('s'), userMessage('a'), assistantText('b'), input])).toBeUndefined();
  });

  test('past maxCharacters alone it acts, even with few messages', () => {
    const messages = [userMessage('x'.repeat(500)), assistantText('y'), userMessage('z'), input];
    const result = plan(messages, { maxCharacters: 100 });
    expect(result?.removed).toBe(2);
  });
});

describe('remove mode', () => {
  test('removes everything older than the retained tail except protected messages, and puts the summary in its place', () => {
    const pinned = { ...userMessage('pinned fact'), metadata: { pinned: true } };
    const old = [userMessage('u1'), assistantText('a1'), userMessage('u2'), assistantText('a2')];
    const messages = [systemPrompt('s'), old[0], pinned, old[1], old[2], old[3], input, assistantText('latest')].filter((m): m is Message => m !== undefined);
    const result = plan(messages);
    const after = apply(messages, result?.events ?? []);
    expect(after.map(textOf)).toEqual(['s', expect.stringMatching(/^\[conversation compacted\] 4 earlier messages were removed/), 'pinned fact', 'current question', 'latest']);
    expect(after[1]?.metadata['compaction.summary']).toEqual({ removed: { user: 2, assistant: 2, tool: 0, system: 0 }, shortened: 0, compactions: 1 });
    expect(result?.after).toEqual({ messages: 5, characters: after.reduce((sum, m) => sum + messageCharacters(m.data), 0) });
    expect(result?.overLimit).toBe(false);
  });

  test('the retained tail is widened so a tool call keeps its results', () => {
    const messages = [userMessage('u1'), assistantText('a1'), userMessage('u2'), assistantCalls(['c1', 'c2']), toolResult('c1'), toolResult('c2')];
    // The last 2 messages are two results: the tail must begin at their assistant message.
    expect(retainedTailStart(messages, 2)).toBe(3);
    const after = apply(messages, plan(messages, { maxMessages: 5 })?.events ?? []);
    expect(pairingProblems(after)).toEqual([]);
    expect(after.map((m) => m.data.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
  });

  test('an existing summary is replaced in place with the running totals, never stacked', () => {
    const earlier = summaryMessage({ ...emptyCounts(), removed: { user: 3, assistant: 3, tool: 1, system: 0 }, compactions: 2 }, 'message-compaction');
    const messages = [systemPrompt('s'), earlier, userMessage('u1'), assistantText('a1'), userMessage('u2'), assistantText('a2'), input, assistantText('r')];
    const after = apply(messages, plan(messages)?.events ?? []);
    const summaries = after.filter((m) => m.metadata['compaction.summary'] !== undefined);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.id).toBe(earlier.id);
    expect(after.findIndex((m) => m.id === summaries[0]?.id)).toBe(1);
    expect(readSummaryCounts(summaries[0])).toEqual({ removed: { user: 5, assistant: 5, tool: 1, system: 0 }, shortened: 0, compactions: 3 });
  });

  test('a second summary (from anywhere) is removed without being counted', () => {
    const first = summaryMessage(emptyCounts(), 'message-compaction');
    const second = summaryMessage(emptyCounts(), 'message-compaction');
    const messages = [first, userMessage('u1'), second, assistantText('a1'), userMessage('u2'), assistantText('a2'), input, assistantText('r')];
    const after = apply(messages, plan(messages)?.events ?? []);
    expect(after.filter((m) => m.metadata['compaction.summary'] !== undefined).map((m) => m.id)).toEqual([first.id]);
    expect(readSummaryCounts(after[0]).removed).toEqual({ user: 2, assistant: 2, tool: 0, system: 0 });
  });

  test('orphan tool results are removed even when they are in the tail', () => {
    const messages = [userMessage('u1'), assistantText('a1'), userMessage('u2'), assistantText('a2'), toolResult('lost'), input, assistantText('r')];
    const after = apply(messages, plan(messages, { retainLastMessages: 4, maxMessages: 5 })?.events ?? []);
    expect(after.some((m) => m.data.role === 'tool')).toBe(false);
    expect(pairingProblems(after)).toEqual([]);
  });

  test('when protected and retained messages alone exceed a limit, it says so (overLimit)', () => {
    const pins = Array.from({ length: 5 }, (_, i) => ({ ...userMessage(`pin ${i}`), metadata: { pinned: true } }));
    const result = plan([...pins, userMessage('old'), input, assistantText('r')], { maxMessages: 4 });
    expect(result?.overLimit).toBe(true);
    expect(result?.after.messages).toBe(8);
  });
});

describe('truncate mode', () => {
  test('shortens old long messages, oldest first, only until the characters fit; removes nothing when that suffices', () => {
    const messages = [
      userMessage('u1'),
      assistantCalls(['c1']),
      toolResult('c1', 'r'.repeat(1000)),
      assistantCalls(['c2']),
      toolResult('c2', { rows: 'q'.repeat(1000) }),
      assistantText('a'),
      input,
      assistantText('answer'),
    ];
    const result = plan(messages, { mode: 'truncate', maxMessages: 20, maxCharacters: 1500, truncateToCharacters: 100 });
    expect(result?.removed).toBe(0);
    expect(result?.shortened).toBe(1);
    const after = apply(messages, result?.events ?? []);
    expect(after.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(after[2]?.metadata['compaction.truncated']).toEqual({ originalCharacters: 1000 });
    expect(after[4]).toBe(messages[4]);
    // Shortening alone is announced inline: no summary yet.
    expect(after.some((m) => m.metadata['compaction.summary'] !== undefined)).toBe(false);
  });

  test('removes whole units, oldest first, only while a limit is still exceeded', () => {
    const messages = [userMessage('u1'), assistantText('a1'), userMessage('u2'), assistantText('a2'), userMessage('u3'), assistantText('a3'), input, assistantText('r')];
    const after = apply(messages, plan(messages, { mode: 'truncate', maxMessages: 6 })?.events ?? []);
    // 8 messages, limit 6: u1 becomes the summary, a1 and u2 go (the summary is a message too).
    expect(after.map(textOf)).toEqual([expect.stringContaining('[conversation compacted] 3 earlier messages'), 'a2', 'u3', 'a3', 'current question', 'r']);
  });
});

describe('truncateMessage and messageCharacters', () => {
  test('a JSON tool result is cut as text with a note; the call id and the message id stay', () => {
    const message = toolResult('c9', { items: 'z'.repeat(800) });
    const cut = truncateMessage(message, 100);
    expect(cut?.id).toBe(message.id);
    const part = cut?.data.role === 'tool' ? cut.data.content[0] : undefined;
    expect(part?.type === 'tool-result' ? part.toolCallId : '').toBe('c9');
    expect(part?.type === 'tool-result' ? part.output : undefined).toEqual({
      type: 'text',
      value: `${JSON.stringify({ items: 'z'.repeat(800) }).slice(0, 100)}\n[… 712 characters cut by message-compaction]`,
    });
  });

  test('tool-call arguments are never cut; text around them is', () => {
    const message: Message = {
      ...assistantCalls(['c1'], { path: 'p'.repeat(300) }),
    };
    const withText: Message = message.data.role === 'assistant' && typeof message.data.content !== 'string'
      ? { ...message, data: { role: 'assistant', content: [{ type: 'text', text: 't'.repeat(500) }, ...message.data.content] } }
      : message;
    const cut = truncateMessage(withText, 200);
    const content = cut?.data.role === 'assistant' && typeof cut.data.content !== 'string' ? cut.data.content : [];
    expect(content[1]).toEqual(withText.data.role === 'assistant' && typeof withText.data.content !== 'string' ? withText.data.content[1] : undefined);
    expect(content[0]?.type === 'text' ? content[0].text : '').toStartWith('t'.repeat(200));
  });

  test('a short message is left alone; a second cut keeps the first original size', () => {
    expect(truncateMessage(userMessage('short'), 100)).toBeUndefined();
    const once = truncateMessage(userMessage('w'.repeat(1000)), 300);
    const twice = once && truncateMessage(once, 100);
    expect(twice?.metadata['compaction.truncated']).toEqual({ originalCharacters: 1000 });
  });

  test('characters count text, tool arguments and tool results, not images', () => {
    expect(messageCharacters(userMessage('abcd').data)).toBe(4);
    expect(messageCharacters(assistantCalls(['c'], { a: 1 }).data)).toBe(JSON.stringify({ a: 1 }).length);
    expect(messageCharacters(toolResult('c', { b: true }).data)).toBe(JSON.stringify({ b: true }).length);
    expect(messageCharacters({ role: 'user', content: [{ type: 'image', image: new URL('https://example.com/x.png') }, { type: 'text', text: 'hi' }] })).toBe(2);
  });

  test('the summary text carries counts only', () => {
    expect(summaryText({ removed: { user: 1, assistant: 0, tool: 2, system: 0 }, shortened: 1, compactions: 1 })).toBe(
      '[conversation compacted] 3 earlier messages were removed to stay within the context limits (1 from the user, 2 tool results). 1 older message is shown shortened. This note stands in for them; their content is no longer available.',
    );
  });
});
