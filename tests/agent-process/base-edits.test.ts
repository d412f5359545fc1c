/**
 * A conversation whose system prompt changes every turn (context-message with `includeInbound`:
 * the event's id and time are in it) keeps a turn's disk work small and flat: the turn's messages
 * are appended to `base.jsonl` and the replaced prompt goes to `base-edits.jsonl`, which a load
 * applies after the base; past EDITS_LIMIT edits, once they outweigh the base, one fold rewrites the
 * base with them.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Conversation, type ConversationWarning } from '../../agent-process/conversation/conversation-state.ts';
import { EDITS_LIMIT, MessageStore } from '../../agent-process/conversation/message-store.ts';
import type { ExtensionPlan } from '../../shared/types/bundle.ts';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import { baseMessages, makePlan, readJsonl, startEngine, tempStateRoot, trackEngines, userEvent, type EngineHarness } from './helpers/engine-fixture.ts';

const harnesses = trackEngines();
const inboundPrompt: ExtensionPlan = {
  name: 'context-message',
  packageName: '@goondan/base',
  entryPath: resolve(import.meta.dir, '../../bundles/base/extensions/context-message/index.ts'),
  config: { includeInbound: true, includeCall: false },
};
const plan = (systemPrompt = 'Answer briefly.') => makePlan({ systemPrompt, extensions: [inboundPrompt] });

const HISTORY_TURNS = 20;

/** HISTORY_TURNS turns: the first appends the prompt, each later one replaces it (an edit). */
async function talk(h: EngineHarness): Promise<void> {
  for (let turn = 0; turn < HISTORY_TURNS; turn++) await h.engine.runTurn(userEvent(`question ${turn}`));
}

const edits = (h: EngineHarness) => readJsonl(h.paths.baseEdits) as MessageEvent[];
const stored = (h: EngineHarness) => new MessageStore(h.paths.baseMessages, h.paths.messageEvents, undefined, h.paths.baseEdits).load();
const firstLine = (h: EngineHarness) => readFileSync(h.paths.baseMessages, 'utf8').split('\n')[0] ?? '';

describe('base-edits.jsonl', () => {
  test('a turn appends to the base and keeps the new prompt as an edit, which a restart applies', async () => {
    const stateRoot = tempStateRoot();
    const h = await startEngine(plan(), { stateRoot });
    harnesses.push(h);
    await talk(h);
    const inode = statSync(h.paths.baseMessages).ino;
    const before = firstLine(h);
    const count = baseMessages(h.paths).length;

    const event = userEvent('one more');
    await h.engine.runTurn(event);

    // Not rewritten: the same file, its first line (the old prompt) untouched, two messages appended.
    expect(statSync(h.paths.baseMessages).ino).toBe(inode);
    expect(firstLine(h)).toBe(before);
    expect(baseMessages(h.paths)).toHaveLength(count + 2);
    expect(edits(h).map((edit) => edit.type)).toEqual(Array(HISTORY_TURNS).fill('replace'));
    await h.engine.close();

    // What an agent starting on these files loads.
    const messages = stored(h).base;
    expect(messages).toHaveLength(count + 2);
    expect(messages[0]?.data.content).toContain(`eventId: ${event.id}`);
    expect(messages.filter((message) => message.data.role === 'system')).toHaveLength(1);
    expect(messages.at(-2)?.data.content).toBe('one more');

    const again = await startEngine(plan(), { stateRoot });
    harnesses.push(again);
    const next = userEvent('after a restart');
    await again.engine.runTurn(next);
    expect(again.logLines().filter((line) => Number(line.level) >= 40)).toEqual([]);
    const after = stored(again).base;
    expect(after).toHaveLength(count + 4);
    expect(after[0]?.data.content).toContain(`eventId: ${next.id}`);
    expect(after.filter((message) => message.data.role === 'system')).toHaveLength(1);
    expect(edits(again)).toHaveLength(HISTORY_TURNS + 1);
  });

  test(`after ${EDITS_LIMIT} edits that outweigh the base a fold rewrites the base with them and clears the edits`, async () => {
    // Each edit holds the whole prompt: 64 of them outweigh a base of short messages.
    const h = await startEngine(plan('Answer briefly. '.repeat(64)));
    harnesses.push(h);
    // The first turn appends the prompt: every later one replaces it.
    for (let turn = 0; turn <= EDITS_LIMIT; turn++) await h.engine.runTurn(userEvent(`turn ${turn}`));
    expect(edits(h)).toHaveLength(EDITS_LIMIT);
    const inode = statSync(h.paths.baseMessages).ino;

    const event = userEvent('the one that rewrites');
    await h.engine.runTurn(event);

    expect(statSync(h.paths.baseMessages).ino).not.toBe(inode);
    expect(edits(h)).toEqual([]);
    expect(baseMessages(h.paths)[0]?.data.content).toContain(`eventId: ${event.id}`);
    expect(baseMessages(h.paths)).toHaveLength(1 + 2 * (EDITS_LIMIT + 2));
  });

  test(`past ${EDITS_LIMIT} edits they are kept while no larger than the base, also after a restart`, async () => {
    const stateRoot = tempStateRoot();
    const h = await startEngine(plan(), { stateRoot });
    harnesses.push(h);
    // Long messages: the base outweighs the short prompt's edits (a long conversation's shape).
    const long = (turn: number) => `question ${turn}: ${'words of a long message '.repeat(40)}`;
    for (let turn = 0; turn <= EDITS_LIMIT + 5; turn++) await h.engine.runTurn(userEvent(long(turn)));
    const inode = statSync(h.paths.baseMessages).ino;
    expect(edits(h)).toHaveLength(EDITS_LIMIT + 5);
    await h.engine.close();

    // The sizes come from the files on a start: the next fold still appends.
    const again = await startEngine(plan(), { stateRoot });
    harnesses.push(again);
    const event = userEvent(long(EDITS_LIMIT + 6));
    await again.engine.runTurn(event);
    expect(statSync(again.paths.baseMessages).ino).toBe(inode);
    expect(edits(again)).toHaveLength(EDITS_LIMIT + 6);
    const messages = stored(again).base;
    expect(messages).toHaveLength(1 + 2 * (EDITS_LIMIT + 7));
    expect(messages[0]?.data.content).toContain(`eventId: ${event.id}`);
    expect(messages.filter((message) => message.data.role === 'system')).toHaveLength(1);
  });
});

describe('loading', () => {
  const message = (id: string, content: string): Message => ({ id, data: { role: id.startsWith('s') ? 'system' : 'user', content }, metadata: {}, createdAt: '2026-11-28T00:00:00.000Z', source: { type: 'user' } });
  const lines = (values: unknown[]) => values.map((value) => `${JSON.stringify(value)}\n`).join('');

  test('edits a rewrite already took in (a crash before it cleared them) change nothing and warn of nothing', () => {
    const dir = join(tempStateRoot(), 'm');
    const store = new MessageStore(join(dir, 'base.jsonl'), join(dir, 'events.jsonl'));
    writeFileSync(join(dir, 'base.jsonl'), lines([message('s3', 'prompt 3'), message('a', 'one')]));
    writeFileSync(join(dir, 'base-edits.jsonl'), lines([{ type: 'replace', targetId: 's1', message: message('s2', 'prompt 2') }, { type: 'replace', targetId: 's2', message: message('s3', 'prompt 3') }]));
    const stored = store.load();
    expect(stored.base.map((m) => m.data.content)).toEqual(['prompt 3', 'one']);
    expect(stored.warnings).toEqual([]);
  });

  test('replaying a turn whose replacement the edits already hold (a crash before the events were cleared) warns of nothing', () => {
    const dir = join(tempStateRoot(), 'm');
    const store = new MessageStore(join(dir, 'base.jsonl'), join(dir, 'events.jsonl'));
    writeFileSync(join(dir, 'base.jsonl'), lines([message('s1', 'prompt 1'), message('a', 'one'), message('b', 'two')]));
    writeFileSync(join(dir, 'base-edits.jsonl'), lines([{ type: 'replace', targetId: 's1', message: message('s2', 'prompt 2') }]));
    writeFileSync(join(dir, 'events.jsonl'), lines([{ type: 'replace', targetId: 's1', message: message('s2', 'prompt 2') }, { type: 'append', message: message('b', 'two') }]));
    const stored = store.load();
    const warnings: ConversationWarning[] = [];
    const conversation = new Conversation(stored.base, (warning) => warnings.push(warning));
    for (const event of stored.events) conversation.apply(event);
    expect(warnings.filter((warning) => warning.code !== 'E_MESSAGE_DUPLICATE_ID')).toEqual([]);
    expect(conversation.nextMessages.map((m) => m.data.content)).toEqual(['prompt 2', 'one', 'two']);
  });

});
