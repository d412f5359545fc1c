/**
 * message-compaction through the real engine (mock model), in both modes, over 40–60 turns with
 * tool calls and large tool results: after every turn, every prompt and the stored history keep
 * tool calls with their results, the current input, the pinned message and the system prompt,
 * stay within maxMessages and maxCharacters, and hold exactly one summary (once anything was
 * removed) whose counts match what really went. No model call is spent on summarising.
 */
import { describe, expect, test } from 'bun:test';
import type { JsonObject } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import { messageCharacters } from '../../bundles/base/extensions/message-compaction/message-size.ts';
import { baseMessages, echoTool, makePlan, startEngine, userEvent, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { pairingProblems, textOf } from './helpers/conversation-invariants.ts';
import { baseExtension, blobTool, fixtureExtension, promptCapture } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

const script: JsonObject = {
  rules: [
    { match: 'double', toolCalls: [{ name: 'echo__say', args: { text: 'a' } }, { name: 'echo__say', args: { text: 'b' } }], then: { toolCalls: [{ name: 'echo__say', args: { text: 'c' } }], then: 'finished' } },
    { match: 'big', toolCalls: [{ name: 'blob__make', args: { size: 1500 } }], then: 'made' },
    { match: 'call', toolCalls: [{ name: 'echo__say', args: { text: 'echo of {{input}}' } }], then: 'done' },
  ],
};

function inputFor(turn: number): { text: string; reply: string } {
  if (turn === 3) return { text: '#pin the code word is heron', reply: '#pin the code word is heron' };
  switch (turn % 5) {
    case 0:
      return { text: `big ${turn}`, reply: 'made' };
    case 1:
      return { text: `double ${turn}`, reply: 'finished' };
    case 2:
      return { text: `call ${turn}`, reply: 'done' };
    case 3:
      return { text: `plain question number ${turn}`, reply: `plain question number ${turn}` };
    default:
      return { text: `call once more ${turn}`, reply: 'done' };
  }
}

const SUMMARY = 'compaction.summary';
const characters = (messages: readonly Message[]): number => messages.reduce((sum, m) => sum + messageCharacters(m.data), 0);
/** The running totals a summary carries (zeros without one). */
function summaryFacts(summary: Message | undefined): { removed: number; compactions: number } {
  const meta = summary?.metadata[SUMMARY];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return { removed: 0, compactions: 0 };
  const removed = meta.removed;
  const total = typeof removed === 'object' && removed !== null && !Array.isArray(removed) ? Object.values(removed).reduce<number>((sum, value) => sum + (typeof value === 'number' ? value : 0), 0) : 0;
  return { removed: total, compactions: typeof meta.compactions === 'number' ? meta.compactions : 0 };
}
const findSummary = (messages: readonly Message[]): Message | undefined => messages.find((m) => m.metadata[SUMMARY] !== undefined);

interface Limits {
  maxMessages: number;
  maxCharacters: number;
  retainLastMessages: number;
  mode: 'remove' | 'truncate';
  truncateToCharacters?: number;
}

/** Runs `turns` scripted turns and checks every invariant after each one; returns what it saw. */
async function runManyTurns(limits: Limits, turns: number): Promise<{ stored: Message[]; compactedAtTurn: number; modelCalls: number; steps: number; shortened: Map<string, Message> }> {
  const capture = promptCapture();
  const h = await startEngine(
    makePlan({
      tools: [echoTool(), blobTool()],
      script,
      systemPrompt: 'You are a compaction test agent.',
      extensions: [fixtureExtension('pin-marker'), baseExtension('message-compaction', { ...limits }), capture.plan],
    }),
  );
  harnesses.push(h);
  const everSeen = new Set<string>();
  let pinnedId: string | undefined;
  let compactedAtTurn = -1;
  let steps = 0;
  let stored: Message[] = [];
  const shortened = new Map<string, Message>();

  for (let turn = 0; turn < turns; turn++) {
    const { text, reply } = inputFor(turn);
    const event = userEvent(text);
    const result = await h.engine.runTurn(event);
    expect({ turn, reply: result.responseText, finish: result.finishReason }).toEqual({ turn, reply, finish: 'text_response' });
    steps += result.stepCount;

    const prompts = capture.steps.filter((step) => step.turnId === result.turnId).map((step) => step.messages);
    stored = baseMessages(h.paths);
    if (turn === 3) pinnedId = stored.find((m) => m.metadata.pinned === true && textOf(m).startsWith('#pin'))?.id;
    for (const [where, messages] of [...prompts.map((p, i) => [`turn ${turn} step ${i}`, p] as const), [`turn ${turn} stored`, stored] as const]) {
      for (const m of messages) if (m.metadata[SUMMARY] === undefined) everSeen.add(m.id);
      for (const m of messages) if (m.metadata['compaction.truncated'] !== undefined) shortened.set(m.id, m);
      const summaries = messages.filter((m) => m.metadata[SUMMARY] !== undefined);
      if (summaries.length > 0 && compactedAtTurn < 0) compactedAtTurn = turn;
      expect({ where, problems: pairingProblems(messages) }).toEqual({ where, problems: [] });
      expect({ where, messages: messages.length <= limits.maxMessages, characters: characters(messages) <= limits.maxCharacters }).toEqual({
        where,
        messages: true,
        characters: true,
      });
      expect({ where, system: messages[0]?.data.role }).toEqual({ where, system: 'system' });
      expect({ where, input: messages.some((m) => m.source.type === 'user' && m.metadata.eventId === event.id) }).toEqual({ where, input: true });
      if (pinnedId !== undefined) expect({ where, pinned: messages.some((m) => m.id === pinnedId) }).toEqual({ where, pinned: true });
      // Once compaction removed something there is exactly one summary, right after the system prompt.
      expect({ where, summaries: summaries.length }).toEqual({ where, summaries: compactedAtTurn < 0 ? 0 : 1 });
      if (summaries.length === 1) expect({ where, at: messages.findIndex((m) => m.metadata[SUMMARY] !== undefined) }).toEqual({ where, at: 1 });
    }
    // The summary counts exactly the messages that are gone.
    const present = new Set(stored.map((m) => m.id));
    const gone = [...everSeen].filter((id) => !present.has(id)).length;
    expect({ turn, removed: summaryFacts(findSummary(stored)).removed }).toEqual({ turn, removed: gone });
  }
  return { stored, compactedAtTurn, modelCalls: capture.steps.length, steps, shortened };
}

describe('message-compaction, mode remove', () => {
  test('50 turns within 12 messages / 3000 characters, retaining the last 4', async () => {
    const seen = await runManyTurns({ maxMessages: 12, maxCharacters: 3000, retainLastMessages: 4, mode: 'remove' }, 50);
    expect(seen.compactedAtTurn).toBeGreaterThan(0);
    // One model call per step: the summary costs no LLM call.
    expect(seen.modelCalls).toBe(seen.steps);
    const summary = findSummary(seen.stored);
    expect(summary?.data.role).toBe('user');
    expect(summary ? textOf(summary) : '').toMatch(/^\[conversation compacted\] \d+ earlier messages were removed to stay within the context limits \(\d+ from the user, \d+ from the assistant, \d+ tool results\)\./);
    // Replaced, never stacked: many compactions, still one summary (checked after every turn above).
    expect(summaryFacts(summary).compactions).toBeGreaterThan(3);
  });

  test('remove mode cuts back to the retained tail, so compactions are turns apart', async () => {
    const seen = await runManyTurns({ maxMessages: 20, maxCharacters: 100000, retainLastMessages: 4, mode: 'remove' }, 30);
    const facts = summaryFacts(findSummary(seen.stored));
    expect(facts.compactions).toBeGreaterThan(0);
    // ~4.4 messages per turn, cut back to ~8 at each compaction: far fewer compactions than turns.
    expect(facts.compactions).toBeLessThan(12);
  });
});

describe('message-compaction, mode truncate', () => {
  test('60 turns within 30 messages / 2500 characters: old long results are shortened, and only what must go is removed', async () => {
    const seen = await runManyTurns({ maxMessages: 30, maxCharacters: 2500, retainLastMessages: 4, mode: 'truncate', truncateToCharacters: 300 }, 60);
    expect(seen.shortened.size).toBeGreaterThan(3);
    for (const message of seen.shortened.values()) {
      expect(message.data.role).toBe('tool');
      expect(JSON.stringify(message.data.content)).toMatch(/1200 characters cut by message-compaction/);
      expect(messageCharacters(message.data)).toBeLessThan(400);
      expect(message.metadata['compaction.truncated']).toEqual({ originalCharacters: 1500 });
    }
    // Removal happens only to stay within maxMessages: the history stays close to that limit.
    expect(seen.compactedAtTurn).toBeGreaterThan(0);
    expect(seen.stored.length).toBeGreaterThan(25);
  });

  test('within both limits nothing is touched and there is no summary', async () => {
    const seen = await runManyTurns({ maxMessages: 200, maxCharacters: 200000, retainLastMessages: 4, mode: 'truncate' }, 10);
    expect(seen.compactedAtTurn).toBe(-1);
    expect(seen.stored.some((m) => m.metadata['compaction.truncated'] !== undefined)).toBe(false);
  });
});

describe('message-compaction config is checked when the agent starts', () => {
  test('an unknown mode is E_EXT_CONFIG listing the allowed values', async () => {
    await expect(startEngine(makePlan({ extensions: [baseExtension('message-compaction', { mode: 'summarise' })] }))).rejects.toThrow(
      /E_EXT_CONFIG.*config\.mode: must be one of \["remove","truncate"\]/,
    );
  });
});
