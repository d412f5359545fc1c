/**
 * The mock model reads a conversation's prompts call after call (agent-process/models/mock/mock-prompt.ts):
 * what it reports is what reading each prompt whole reports, and a message it has read before is not
 * read again, so its cost does not grow with the conversation.
 */
import { describe, expect, test } from 'bun:test';
import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { PromptReader, readPrompt } from '../../agent-process/models/mock/mock-prompt.ts';

const system = (text: string): LanguageModelV3Message => ({ role: 'system', content: text });
const user = (text: string): LanguageModelV3Message => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): LanguageModelV3Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string, input: Record<string, string>): LanguageModelV3Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'echo__say', input }],
});
const result = (id: string, value: Record<string, string>): LanguageModelV3Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'echo__say', output: { type: 'json', value } }],
});

/** A message that counts how often it is looked at (its role or its content). */
function counted(message: LanguageModelV3Message, reads: Map<LanguageModelV3Message, number>): LanguageModelV3Message {
  const watched = {} as LanguageModelV3Message;
  for (const key of ['role', 'content'] as const) {
    const value = message[key];
    Object.defineProperty(watched, key, {
      enumerable: true,
      get: () => {
        reads.set(watched, (reads.get(watched) ?? 0) + 1);
        return value;
      },
    });
  }
  return watched;
}

describe('PromptReader', () => {
  test('reports for each prompt what reading it whole reports, also when the prompt changed before its end', () => {
    const reader = new PromptReader();
    const first: LanguageModelV3Prompt = [system('be brief'), user('go'), call('call_1', { text: 'x' }), result('call_1', { echoed: 'x' })];
    const grown: LanguageModelV3Prompt = [...first, answer('done'), user('again'), call('call_2', { text: 'y' })];
    // The system message replaced (a new object), the rest kept: read again from there.
    const replaced: LanguageModelV3Prompt = [system('be very brief'), ...grown.slice(1)];
    // Shorter than the last one (a compaction): the kept prefix still counts.
    const shorter: LanguageModelV3Prompt = [replaced[0] as LanguageModelV3Message, user('fresh start')];
    // A second system message, then it alone replaced by a longer one (its characters count anew).
    const twoSystems: LanguageModelV3Prompt = [...grown, system('[runtime_inbound] 1')];
    const secondReplaced: LanguageModelV3Prompt = [...grown, system('[runtime_inbound] 2 and more'), user('then')];
    for (const prompt of [first, grown, grown, replaced, shorter, grown, twoSystems, secondReplaced, replaced]) expect(reader.read(prompt)).toEqual(readPrompt(prompt));
    expect(reader.read(grown)).toMatchObject({ input: 'again', depth: 1, toolCallsSoFar: 2, system: 'be brief' });
  });

  test('looks at a message it read before only while it is in the running turn', () => {
    const reads = new Map<LanguageModelV3Message, number>();
    const history: LanguageModelV3Message[] = [];
    for (let i = 0; i < 200; i++) history.push(counted(user(`question ${i}`), reads), counted(call(`call_${i}`, { text: `q${i}` }), reads), counted(result(`call_${i}`, { echoed: `q${i}` }), reads), counted(answer(`answer ${i}`), reads));
    const reader = new PromptReader();
    reader.read(history);
    const before = new Map(reads);

    const turn = [counted(user('one more'), reads), counted(call('call_200', { text: 'more' }), reads)];
    const reading = reader.read([...history, ...turn]);

    expect(reading).toMatchObject({ input: 'one more', depth: 1, toolCallsSoFar: 201 });
    expect(history.filter((message) => reads.get(message) !== before.get(message))).toEqual([]);
    for (const message of turn) expect(reads.get(message)).toBeGreaterThan(0);
  });

  test('a replaced system message (a new system prompt each turn) is patched: the history after it is not looked at again', () => {
    const reads = new Map<LanguageModelV3Message, number>();
    const history: LanguageModelV3Message[] = [];
    for (let i = 0; i < 100; i++) history.push(counted(user(`question ${i}`), reads), counted(call(`call_${i}`, { text: `q${i}` }), reads), counted(result(`call_${i}`, { echoed: `q${i}` }), reads), counted(answer(`answer ${i}`), reads));
    const reader = new PromptReader();
    reader.read([system('event 1'), ...history]);
    const before = new Map(reads);

    const prompt = [system('event 2'), ...history, user('next')];
    const reading = reader.read(prompt);
    expect(history.filter((message) => reads.get(message) !== before.get(message))).toEqual([]);
    expect(reading).toEqual(readPrompt(prompt));
  });
});
