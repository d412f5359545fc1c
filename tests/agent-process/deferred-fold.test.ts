/**
 * The end of a turn folds its conversation in one fsync round (issue 12): the delta is appended to
 * base.jsonl without a sync of its own, the caller's barrier syncs it together with the events
 * file, and only then are the events cleared. A crash inside that window (base extended, events
 * still there) recovers every message exactly once.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Conversation } from '../../agent-process/conversation/conversation-state.ts';
import { createMessage } from '../../agent-process/conversation/message-factory.ts';
import { MessageStore } from '../../agent-process/conversation/message-store.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { Message } from '../../shared/types/messages.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-fold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string): Message => createMessage({ role: 'user', content: text }, { type: 'user' });
const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : []);

/** A turn's appends, written as events the way the engine writes them, then folded with deferClear. */
function turnFoldedButNotCleared(name: string, policy: FsyncPolicy): { store: MessageStore; conversation: Conversation; base: string; events: string; messages: Message[] } {
  const base = join(dir, name, 'base.jsonl');
  const events = join(dir, name, 'events.jsonl');
  const store = new MessageStore(base, events, policy);
  const conversation = new Conversation([]);
  const messages = [user('one'), user('two')];
  for (const message of messages) {
    const event = { type: 'append' as const, message };
    store.appendEvent(event);
    conversation.apply(event);
  }
  store.fold(conversation.foldPlan(), { deferClear: true });
  conversation.commitFold();
  return { store, conversation, base, events, messages };
}

describe('a deferred fold', () => {
  test('syncs nothing itself; one barrier round syncs the base alone (it holds the events); the events are cleared after it', async () => {
    const policy = new FsyncPolicy('batch');
    const { store, base, events } = turnFoldedButNotCleared('round', policy);
    expect(policy.syncs).toBe(0);
    expect(lines(base)).toHaveLength(2);
    // Until the barrier the events file still holds the turn.
    expect(lines(events)).toHaveLength(2);
    await policy.settle();
    expect(policy.syncs).toBe(1);
    store.clearFoldedEvents();
    expect(lines(events)).toEqual([]);
    expect(lines(base)).toHaveLength(2);
    store.close();
  });

  test('a crash between the base append and the clearing recovers each message once', () => {
    const { base, events, messages } = turnFoldedButNotCleared('crash', new FsyncPolicy('never'));
    // The process dies here: no clearFoldedEvents, no close. A new store replays events over the base.
    const stored = new MessageStore(base, events).load();
    const recovered = new Conversation(stored.base, () => {});
    for (const event of stored.events) recovered.apply(event);
    expect(recovered.nextMessages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
  });

  test('a full fold after deferred ones renames a new base in place, and later appends go into it', async () => {
    const policy = new FsyncPolicy('batch');
    const { store, base, events } = turnFoldedButNotCleared('rewrite', policy);
    await policy.settle();
    store.clearFoldedEvents();
    const kept = user('kept');
    store.fold({ mode: 'rewrite', messages: [kept] });
    const later = user('later');
    store.appendEvent({ type: 'append', message: later });
    store.fold({ mode: 'delta', appended: [later] }, { deferClear: true });
    await policy.settle();
    store.clearFoldedEvents();
    expect(lines(base).map((l) => (JSON.parse(l) as Message).id)).toEqual([kept.id, later.id]);
    expect(lines(events)).toEqual([]);
    store.close();
  });

  test('clearFoldedEventsSoon clears after the current callbacks, not before', async () => {
    const policy = new FsyncPolicy('batch');
    const { store, events } = turnFoldedButNotCleared('soon', policy);
    await policy.settle();
    store.clearFoldedEventsSoon();
    expect(lines(events)).toHaveLength(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines(events)).toEqual([]);
    store.close();
  });

  test('the next turn’s first event, before the scheduled clearing ran, clears the folded ones first', async () => {
    const policy = new FsyncPolicy('batch');
    const { store, events } = turnFoldedButNotCleared('back-to-back', policy);
    await policy.settle();
    store.clearFoldedEventsSoon();
    // Back to back: the next turn appends before setImmediate fires.
    const next = user('three');
    store.appendEvent({ type: 'append', message: next });
    expect(lines(events).map((line) => (JSON.parse(line) as { message: Message }).message.id)).toEqual([next.id]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines(events)).toHaveLength(1);
    store.close();
  });

  test('an event emitted before the barrier syncs the folded base itself and clears the folded events first', () => {
    const policy = new FsyncPolicy('batch');
    const { store, conversation, base, events, messages } = turnFoldedButNotCleared('early', policy);
    const [one, two] = messages as [Message, Message];
    // An extension replaces a message the folded turn appended, while that turn's barrier is due.
    const replaced = user('two, replaced');
    const replace = { type: 'replace' as const, targetId: two.id, message: replaced };
    store.appendEvent(replace);
    expect(policy.syncs).toBe(1);
    expect(lines(events)).toHaveLength(1);
    conversation.apply(replace);
    store.fold(conversation.foldPlan(), { deferClear: true });
    conversation.commitFold();
    // The process dies before the barrier: a replay of both turns' events would append `two` again.
    const stored = new MessageStore(base, events).load();
    const recovered = new Conversation(stored.base, () => {});
    for (const event of stored.events) recovered.apply(event);
    expect(recovered.nextMessages.map((m) => m.id)).toEqual([one.id, replaced.id]);
    store.close();
  });

  test('close syncs the base before it clears the folded events', () => {
    const policy = new FsyncPolicy('batch');
    const { store, events } = turnFoldedButNotCleared('close', policy);
    store.close();
    expect(policy.syncs).toBe(1);
    expect(lines(events)).toEqual([]);
  });
});
