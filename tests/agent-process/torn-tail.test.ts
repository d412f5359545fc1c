/**
 * An agent's append-only files after a torn write (a crash, a power loss under fsync batch|never, a
 * full disk): the next record appended must not be glued to the partial last line, or it is skipped
 * on every load — a user message vanishes from the history, a tool call is forgotten.
 */
import { describe, expect, test } from 'bun:test';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Conversation } from '../../agent-process/conversation/conversation-state.ts';
import { createMessage } from '../../agent-process/conversation/message-factory.ts';
import { MessageStore } from '../../agent-process/conversation/message-store.ts';
import { AsyncReplyInbox } from '../../agent-process/engine/async-reply-inbox.ts';
import { ToolJournal } from '../../agent-process/tools/tool-journal.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { TornTail } from '../../shared/durability/line-boundary.ts';
import type { InterAgentReply } from '../../shared/types/events.ts';
import type { Message } from '../../shared/types/messages.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-torn-agent-');

const TORN = '{"id":"msg_torn","role":"user","con';
const user = (text: string): Message => createMessage({ role: 'user', content: text }, { type: 'user' });

interface StoreFiles {
  base: string;
  events: string;
}

function storeFiles(): StoreFiles {
  const dir = join(tempDir(), 'messages');
  mkdirSync(dir, { recursive: true });
  return { base: join(dir, 'base.jsonl'), events: join(dir, 'events.jsonl') };
}

/** A store as the engine makes it after a restart: loaded, its conversation replayed. */
function reopen(files: StoreFiles, onTornTail?: (tail: TornTail) => void): { store: MessageStore; conversation: Conversation } {
  const store = new MessageStore(files.base, files.events, new FsyncPolicy('never'), undefined, onTornTail);
  const stored = store.load();
  const conversation = new Conversation(stored.base, () => {});
  for (const event of stored.events) conversation.apply(event);
  return { store, conversation };
}

/** One turn's message: written as its event, then folded into the base (deferred or at once). */
function turn(store: MessageStore, conversation: Conversation, message: Message, deferClear: boolean): void {
  const event = { type: 'append' as const, message };
  store.appendEvent(event);
  conversation.apply(event);
  store.fold(conversation.foldPlan(), { deferClear });
  conversation.commitFold();
  store.clearFoldedEvents();
}

const idsIn = (files: StoreFiles): string[] => {
  const { store, conversation } = reopen(files);
  store.close();
  return conversation.nextMessages.map((message) => message.id);
};

describe('the message store after a torn write', () => {
  for (const deferClear of [false, true]) {
    test(`a message folded into a base.jsonl with a torn last line survives a reload (${deferClear ? 'deferred fold' : 'synced fold'})`, () => {
      const files = storeFiles();
      const first = reopen(files);
      const before = user('before');
      turn(first.store, first.conversation, before, deferClear);
      first.store.close();
      appendFileSync(files.base, TORN);

      const seen: TornTail[] = [];
      const second = reopen(files, (tail) => seen.push(tail));
      const after = user('after the tear');
      turn(second.store, second.conversation, after, deferClear);
      second.store.close();
      expect(idsIn(files)).toEqual([before.id, after.id]);
      expect(seen).toEqual([{ file: files.base, droppedBytes: Buffer.byteLength(TORN) }]);
    });
  }

  test('an event appended to an events.jsonl with a torn last line is replayed after a crash', () => {
    const files = storeFiles();
    appendFileSync(files.events, '{"type":"append","message":{"id":"msg_');
    const { store } = reopen(files);
    const message = user('in the running turn');
    store.appendEvent({ type: 'append', message });
    // The process dies here: no fold, no close.
    expect(idsIn(files)).toEqual([message.id]);
  });
});

describe('the tool-call journal after a torn write', () => {
  test('a call started after a torn last line is known to the resumed turn', () => {
    const path = join(tempDir(), 'tool-journal.jsonl');
    appendFileSync(path, '{"type":"tool.call.started","messageId":"msg_1","tool');
    const seen: TornTail[] = [];
    const journal = new ToolJournal(path, new FsyncPolicy('never'), () => {}, (tail) => seen.push(tail));
    journal.started('msg_2', 'call_1', 'bash__exec', { command: 'rm x' }, false);
    journal.close();
    expect(new ToolJournal(path, new FsyncPolicy('never')).lookup('msg_2', 'call_1')).toEqual({ state: 'started' });
    expect(seen).toHaveLength(1);
  });
});

describe('the kept async replies after a torn write', () => {
  test('a reply kept after a torn last line is recovered, and the cut is logged as a warning', () => {
    const path = join(tempDir(), 'async-replies.jsonl');
    appendFileSync(path, '{"kind":"inter_agent_response","requestId":"req_0","te');
    const warnings: object[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (obj: object | string) => typeof obj === 'object' && warnings.push(obj) };
    const file = { path, fsync: new FsyncPolicy('never'), alreadyInConversation: () => false };
    const reply: InterAgentReply = {
      kind: 'inter_agent_response',
      version: 1,
      requestId: 'req_1',
      requestEventId: 'evt_1',
      fromAgentId: 'beta',
      toAgentId: 'alpha',
      async: true,
      status: 'ok',
      text: 'the answer',
      receivedAt: new Date(0).toISOString(),
    };
    const inbox = new AsyncReplyInbox(logger, file);
    inbox.push(reply);
    inbox.close();
    expect(new AsyncReplyInbox(logger, file).size).toBe(1);
    expect(warnings).toContainEqual(expect.objectContaining({ code: 'W_JSONL_TORN_TAIL_CUT', file: path }));
  });
});
