/**
 * Event-sourced conversation state (SPEC.md §3.1): nextMessages = base + Σ events, events written
 * as the turn progresses, fold into base (delta append vs atomic rewrite), recovery on start.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { asyncReplyRequestId, Conversation, type ConversationWarning } from '../../agent-process/conversation/conversation-state.ts';
import { createMessage } from '../../agent-process/conversation/message-factory.ts';
import { MessageStore } from '../../agent-process/conversation/message-store.ts';
import { InstanceMetadataFile, PROCESSING_MARK_DELAY_MS } from '../../agent-process/conversation/instance-metadata.ts';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import {
  baseMessages,
  fixtureExtension,
  fixtureTool,
  makePlan,
  makeSwarm,
  messageEvents,
  readJsonl,
  removeDir,
  startEngine,
  tempStateRoot,
  userEvent,
  type EngineHarness,
} from './helpers/engine-fixture.ts';
import { instancePaths } from '../../shared/state-paths.ts';

const user = (text: string): Message => createMessage({ role: 'user', content: text }, { type: 'user' });
const assistant = (text: string): Message => createMessage({ role: 'assistant', content: [{ type: 'text', text }] }, { type: 'assistant', stepId: 'step_1' });
const texts = (messages: readonly Message[]) => messages.map((m) => (typeof m.data.content === 'string' ? m.data.content : JSON.stringify(m.data.content)));

describe('Conversation: nextMessages = base + Σ events', () => {
  test('append, replace, remove and truncate apply in order without touching base', () => {
    const a = user('a');
    const b = user('b');
    const conversation = new Conversation([a, b]);
    const c = user('c');
    conversation.apply({ type: 'append', message: c });
    conversation.apply({ type: 'replace', targetId: a.id, message: { ...a, id: 'a2', data: { role: 'user', content: 'A' } } });
    conversation.apply({ type: 'remove', targetId: b.id });
    expect(texts(conversation.nextMessages)).toEqual(['A', 'c']);
    expect(texts(conversation.baseMessages)).toEqual(['a', 'b']);
    expect(conversation.events).toHaveLength(3);
    conversation.apply({ type: 'truncate' });
    expect(conversation.nextMessages).toEqual([]);
  });

  test('baseMessages stays the folded base through replacements (read before, between and after them), a remove and a fold', () => {
    const system = (text: string): Message => createMessage({ role: 'system', content: text }, { type: 'system' });
    const [s1, a, b] = [system('prompt 1'), user('a'), user('b')];
    const conversation = new Conversation([s1, a, b]);
    const c = user('c');
    conversation.apply({ type: 'append', message: c });
    expect(texts(conversation.baseMessages)).toEqual(['prompt 1', 'a', 'b']);
    const s2 = system('prompt 2');
    conversation.apply({ type: 'replace', targetId: s1.id, message: s2 });
    expect(texts(conversation.baseMessages)).toEqual(['prompt 1', 'a', 'b']);
    // A replaced replacement, and a replaced message appended after the fold: the base keeps its own.
    conversation.apply({ type: 'replace', targetId: s2.id, message: system('prompt 3') });
    const bigC = user('C');
    conversation.apply({ type: 'replace', targetId: c.id, message: bigC });
    conversation.apply({ type: 'replace', targetId: b.id, message: user('B') });
    expect(texts(conversation.baseMessages)).toEqual(['prompt 1', 'a', 'b']);
    conversation.apply({ type: 'remove', targetId: a.id });
    conversation.apply({ type: 'replace', targetId: bigC.id, message: user('C2') });
    expect(texts(conversation.baseMessages)).toEqual(['prompt 1', 'a', 'b']);
    expect(texts(conversation.nextMessages)).toEqual(['prompt 3', 'B', 'C2']);

    conversation.commitFold();
    conversation.apply({ type: 'replace', targetId: conversation.messageAt(0)?.id ?? '', message: system('prompt 4') });
    expect(texts(conversation.baseMessages)).toEqual(['prompt 3', 'B', 'C2']);
    expect(texts(conversation.nextMessages)).toEqual(['prompt 4', 'B', 'C2']);
  });

  test('messageCount, messageAt and systemMessages answer as nextMessages does, through every kind of edit', () => {
    const system = (text: string): Message => createMessage({ role: 'system', content: text }, { type: 'system' });
    const conversation = new Conversation([system('first'), user('a'), system('middle'), user('b')]);
    const agree = () => {
      const all = conversation.nextMessages;
      expect(conversation.messageCount).toBe(all.length);
      expect(conversation.messageAt(0)).toBe(all[0]);
      expect(conversation.messageAt(-1)).toBe(all.at(-1));
      expect(conversation.systemMessages()).toEqual(all.filter((m) => m.data.role === 'system'));
    };
    agree();
    const last = system('last');
    conversation.apply({ type: 'append', message: last });
    agree();
    const first = conversation.messageAt(0);
    conversation.apply({ type: 'replace', targetId: first?.id ?? '', message: user('no longer a system message') });
    agree();
    conversation.apply({ type: 'replace', targetId: conversation.messageAt(1)?.id ?? '', message: system('a became one') });
    agree();
    expect(texts(conversation.systemMessages())).toEqual(['a became one', 'middle', 'last']);
    conversation.apply({ type: 'remove', targetId: last.id });
    agree();
    conversation.apply({ type: 'truncate' });
    agree();
    expect(conversation.systemMessages()).toEqual([]);
    conversation.apply({ type: 'append', message: system('again') });
    agree();
  });

  test('holdsReplyTo answers as a look through nextMessages does, through every kind of edit', () => {
    const reply = (requestId: string, text: string): Message => createMessage({ role: 'user', content: text }, { type: 'user' }, { __goondanInterAgentResponse: { kind: 'inter_agent_response', requestId } });
    const first = reply('corr_1', 'one');
    const conversation = new Conversation([user('a'), first]);
    const agree = (requestIds: string[]) => {
      for (const requestId of ['corr_1', 'corr_2', 'corr_3']) {
        const inHistory = conversation.nextMessages.some((m) => asyncReplyRequestId(m) === requestId);
        expect({ requestId, held: conversation.holdsReplyTo(requestId) }).toEqual({ requestId, held: inHistory });
        expect(inHistory).toBe(requestIds.includes(requestId));
      }
    };
    agree(['corr_1']);
    const second = reply('corr_2', 'two');
    conversation.apply({ type: 'append', message: second });
    agree(['corr_1', 'corr_2']);
    // A reply rewritten in place (as inter-agent-response-format does) keeps its id and metadata.
    conversation.apply({ type: 'replace', targetId: first.id, message: { ...first, data: { role: 'user', content: '[reply] one' } } });
    agree(['corr_1', 'corr_2']);
    conversation.apply({ type: 'replace', targetId: second.id, message: user('no longer a reply') });
    agree(['corr_1']);
    conversation.apply({ type: 'remove', targetId: first.id });
    agree([]);
    conversation.apply({ type: 'append', message: reply('corr_3', 'three') });
    conversation.apply({ type: 'truncate' });
    agree([]);
  });

  test('toLlmMessages hands every role to the model, system and tool included (SPEC.md §9.8 gap)', () => {
    const system = createMessage({ role: 'system', content: 'sys' }, { type: 'system' });
    const tool = createMessage(
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'x__y', output: { type: 'text', value: 'r' } }] },
      { type: 'tool', toolCallId: 'c', toolName: 'x__y' },
    );
    const conversation = new Conversation([system, user('u'), tool]);
    expect(conversation.toLlmMessages().map((m) => m.role)).toEqual(['system', 'user', 'tool']);
  });

  test('modelView: the live model messages, one revision while only appends and replacements happen (logged), a new one after a remove or truncate', () => {
    const a = user('a');
    const conversation = new Conversation([a]);
    const first = conversation.modelView();
    conversation.apply({ type: 'append', message: user('b') });
    const appended = conversation.modelView();
    expect(appended.revision).toBe(first.revision);
    expect(appended.messages).toBe(first.messages);
    expect(appended.messages).toEqual(conversation.toLlmMessages());
    expect(appended.patched).toEqual([]);
    conversation.apply({ type: 'replace', targetId: a.id, message: { ...a, id: 'a2', data: { role: 'user', content: 'A' } } });
    const replaced = conversation.modelView();
    expect(replaced.revision).toBe(first.revision);
    expect(replaced.messages).toBe(first.messages);
    expect(replaced.messages).toEqual(conversation.toLlmMessages());
    expect(replaced.patched).toEqual([0]);
    const edits: MessageEvent[] = [{ type: 'remove', targetId: 'a2' }, { type: 'truncate' }];
    let revision = appended.revision;
    for (const edit of edits) {
      conversation.apply(edit);
      const view = conversation.modelView();
      expect(view.revision).not.toBe(revision);
      expect(view.messages).toEqual(conversation.toLlmMessages());
      expect(view.patched).toEqual([]);
      revision = view.revision;
    }
    // Another conversation never shares a revision (an engine's converter could mistake it for its own).
    expect(new Conversation([a]).modelView().revision).not.toBe(revision);
  });

  test('a replace/remove with a missing target is a structured warning, not a failure', () => {
    const warnings: ConversationWarning[] = [];
    const conversation = new Conversation([user('a')], (w) => warnings.push(w));
    conversation.apply({ type: 'remove', targetId: 'nope' });
    conversation.apply({ type: 'replace', targetId: 'gone', message: user('x') });
    expect(warnings.map((w) => [w.code, w.eventType, w.targetId])).toEqual([
      ['E_MESSAGE_TARGET_MISSING', 'remove', 'nope'],
      ['E_MESSAGE_TARGET_MISSING', 'replace', 'gone'],
    ]);
    expect(texts(conversation.nextMessages)).toEqual(['a']);
  });

  test('appending an id that is already present is skipped (replay is idempotent)', () => {
    const a = user('a');
    const warnings: ConversationWarning[] = [];
    const conversation = new Conversation([a], (w) => warnings.push(w));
    conversation.apply({ type: 'append', message: a });
    expect(conversation.nextMessages).toHaveLength(1);
    expect(warnings[0]?.code).toBe('E_MESSAGE_DUPLICATE_ID');
  });

  test('the fold is a delta when the events only appended, a rewrite otherwise', () => {
    const a = user('a');
    const appendOnly = new Conversation([a]);
    const b = assistant('b');
    appendOnly.apply({ type: 'append', message: b });
    expect(appendOnly.foldPlan()).toEqual({ mode: 'delta', appended: [b] });
    appendOnly.commitFold();
    expect(appendOnly.foldPlan()).toEqual({ mode: 'none' });
    expect(appendOnly.baseMessages).toEqual([a, b]);

    const edited = new Conversation([a]);
    edited.apply({ type: 'append', message: b });
    edited.apply({ type: 'remove', targetId: a.id });
    expect(edited.foldPlan()).toEqual({ mode: 'rewrite', messages: [b] });
  });

  test('appends and replacements fold as an edit; a replacement that keeps its id, or an append taking a freed id, rewrites', () => {
    const a = user('a');
    const b = assistant('b');
    const a2 = user('a2');
    const edited = new Conversation([a]);
    edited.apply({ type: 'replace', targetId: a.id, message: a2 });
    edited.apply({ type: 'append', message: b });
    const plan = edited.foldPlan();
    expect(plan.mode).toBe('edit');
    if (plan.mode !== 'edit') return;
    expect(plan.appended).toEqual([b]);
    expect(plan.replaced).toEqual([{ type: 'replace', targetId: a.id, message: a2 }]);
    expect(plan.messages()).toEqual([a2, b]);

    const sameId = new Conversation([a]);
    sameId.apply({ type: 'replace', targetId: a.id, message: { ...a2, id: a.id } });
    expect(sameId.foldPlan().mode).toBe('rewrite');

    const reused = new Conversation([a]);
    reused.apply({ type: 'replace', targetId: a.id, message: a2 });
    reused.apply({ type: 'append', message: { ...b, id: a.id } });
    expect(reused.foldPlan().mode).toBe('rewrite');
  });
});

describe('MessageStore: files', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(removeDir));
  const storeIn = () => {
    const dir = tempStateRoot();
    dirs.push(dir);
    return { store: new MessageStore(join(dir, 'm', 'base.jsonl'), join(dir, 'm', 'events.jsonl')), dir };
  };

  test('an appended event is in events.jsonl at once', () => {
    const { store, dir } = storeIn();
    const event: MessageEvent = { type: 'append', message: user('now') };
    store.appendEvent(event);
    expect(readJsonl(join(dir, 'm', 'events.jsonl'))).toEqual([event]);
    store.close();
  });

  test('a delta fold appends to base and leaves earlier lines byte-identical, then clears events', () => {
    const { store, dir } = storeIn();
    const base = join(dir, 'm', 'base.jsonl');
    const first = user('first');
    writeFileSync(base, `${JSON.stringify(first)}\n`);
    const before = readFileSync(base, 'utf8');
    const second = assistant('second');
    store.appendEvent({ type: 'append', message: second });
    store.fold({ mode: 'delta', appended: [second] });
    const after = readFileSync(base, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(readJsonl(base)).toEqual([first, second]);
    expect(readFileSync(join(dir, 'm', 'events.jsonl'), 'utf8')).toBe('');
    store.close();
  });

  test('a rewrite fold replaces base atomically (new file via rename)', () => {
    const { store, dir } = storeIn();
    const base = join(dir, 'm', 'base.jsonl');
    writeFileSync(base, `${JSON.stringify(user('old'))}\n`);
    const inodeBefore = statSync(base).ino;
    const kept = assistant('kept');
    store.fold({ mode: 'rewrite', messages: [kept] });
    expect(readJsonl(base)).toEqual([kept]);
    expect(statSync(base).ino).not.toBe(inodeBefore);
    store.close();
  });

  test('load skips a torn last line with a warning', () => {
    const { store, dir } = storeIn();
    const base = join(dir, 'm', 'base.jsonl');
    const ok = user('ok');
    writeFileSync(base, `${JSON.stringify(ok)}\n{"id":"torn","data":{"ro`);
    const loaded = store.load();
    expect(loaded.base).toEqual([ok]);
    expect(loaded.warnings.map((w) => [w.code, w.line])).toEqual([['E_MESSAGE_LINE_INVALID', 2]]);
    store.close();
  });
});

describe('in the engine', () => {
  const harnesses: EngineHarness[] = [];
  afterEach(async () => {
    for (const h of harnesses.splice(0)) {
      await h.engine.close();
      removeDir(h.stateRoot);
    }
  });
  const peekTool = () =>
    fixtureTool('peek', 'peek.ts', [{ name: 'lines', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }]);

  test('events.jsonl holds the input and the assistant tool call before the tool runs; base gets them at turn end', async () => {
    const stateRoot = tempStateRoot();
    const eventsFile = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1').messageEvents;
    const h = await startEngine(
      makePlan({ tools: [peekTool()], script: { rules: [{ match: 'peek', toolCalls: [{ name: 'peek__lines', args: { path: eventsFile } }], then: '{{result}}' }] } }),
      { stateRoot },
    );
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('peek'));
    expect(JSON.parse(result.responseText)).toEqual(['append user', 'append assistant']);
    // The folded events are cleared once the reply has gone (the next loop turn).
    await new Promise((resolve) => setImmediate(resolve));
    expect(messageEvents(h.paths)).toEqual([]);
    expect(baseMessages(h.paths).map((m) => m.data.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  test('an append-only turn delta-appends; an extension remove makes the fold a rewrite', async () => {
    const stateRoot = tempStateRoot();
    const plain = await startEngine(makePlan(), { stateRoot });
    await plain.engine.runTurn(userEvent('one'));
    const firstBase = readFileSync(plain.paths.baseMessages, 'utf8');
    await plain.engine.runTurn(userEvent('two'));
    expect(readFileSync(plain.paths.baseMessages, 'utf8').startsWith(firstBase)).toBe(true);
    await plain.engine.close();

    const editing = await startEngine(makePlan({ extensions: [fixtureExtension('edit', 'message-editor.ts', { mode: 'remove-first-user' })] }), { stateRoot });
    harnesses.push(editing);
    await editing.engine.runTurn(userEvent('three'));
    const stored = baseMessages(editing.paths).map((m) => m.data.content);
    expect(stored).not.toContain('one');
    expect(stored).toContain('two');
    expect(stored).toContain('three');
  });

  test('a remove with a missing target logs a structured warning and the turn completes', async () => {
    const h = await startEngine(makePlan({ extensions: [fixtureExtension('edit', 'message-editor.ts', { mode: 'remove-missing' })] }));
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('hi'));
    expect(result.finishReason).toBe('text_response');
    expect(h.logLines().some((line) => line.code === 'E_MESSAGE_TARGET_MISSING' && line.targetId === 'msg_does_not_exist')).toBe(true);
  });

  test('a malformed event from an extension is rejected before it reaches the files', async () => {
    const h = await startEngine(makePlan({ extensions: [fixtureExtension('edit', 'message-editor.ts', { mode: 'invalid' })] }));
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('hi'));
    expect(result.finishReason).toBe('error');
    expect(result.error?.message).toContain('invalid message event');
    expect(baseMessages(h.paths).some((m) => m.id === 'x')).toBe(false);
  });

  test('unfolded events left by a crash are recovered and folded on start; ids are kept', async () => {
    const stateRoot = tempStateRoot();
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    mkdirSync(dirname(paths.baseMessages), { recursive: true });
    const kept = user('kept');
    const crashed = user('written before the crash');
    const reply = assistant('reply before the crash');
    writeFileSync(paths.baseMessages, `${JSON.stringify(kept)}\n`);
    writeFileSync(
      paths.messageEvents,
      [{ type: 'append', message: crashed }, { type: 'append', message: reply }].map((e) => JSON.stringify(e)).join('\n') + '\n{"type":"app',
    );
    const h = await startEngine(makePlan(), { stateRoot, swarm: makeSwarm() });
    harnesses.push(h);
    expect(baseMessages(paths).map((m) => m.id)).toEqual([kept.id, crashed.id, reply.id]);
    expect(readFileSync(paths.messageEvents, 'utf8')).toBe('');
    expect(h.logLines().some((l) => l.code === 'E_MESSAGE_LINE_INVALID')).toBe(true);
  });

  test('metadata.json stays valid JSON when a shorter status follows a longer one (padded, never truncated)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-meta-'));
    const path = join(dir, 'metadata.json');
    const file = new InstanceMetadataFile(path, '에이전트', 'user-1');
    file.write('processing');
    const longer = readFileSync(path, 'utf8');
    file.write('idle');
    const shorter = readFileSync(path, 'utf8');
    expect(Buffer.byteLength(shorter)).toBe(Buffer.byteLength(longer));
    expect(JSON.parse(shorter)).toMatchObject({ status: 'idle', agentName: '에이전트', instanceKey: 'user-1' });
    file.write('processing');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ status: 'processing' });
    file.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('metadata.json: a short turn writes nothing; one that lasts shows processing, then idle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-meta-'));
    const path = join(dir, 'metadata.json');
    const file = new InstanceMetadataFile(path, 'tester', 'user-1');
    file.write('idle');
    const before = readFileSync(path, 'utf8');
    file.turnStarted();
    file.turnEnded();
    await Bun.sleep(PROCESSING_MARK_DELAY_MS + 50);
    expect(readFileSync(path, 'utf8')).toBe(before);
    file.turnStarted();
    await Bun.sleep(PROCESSING_MARK_DELAY_MS + 50);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ status: 'processing' });
    file.turnEnded();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ status: 'idle' });
    file.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('metadata.json tracks status, identity and timestamps', async () => {
    const h = await startEngine(makePlan());
    harnesses.push(h);
    await h.engine.runTurn(userEvent('hi'));
    const meta = JSON.parse(readFileSync(h.paths.metadata, 'utf8'));
    expect(meta).toMatchObject({ status: 'idle', agentName: 'tester', instanceKey: 'user-1' });
    expect(Date.parse(meta.updatedAt)).toBeGreaterThanOrEqual(Date.parse(meta.createdAt));
  });
});
