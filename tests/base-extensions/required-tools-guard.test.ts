/**
 * required-tools-guard through the real engine: a turn that would end without a successful call
 * of a required tool gets a nudge and goes on; a failed call does not count; a satisfied turn is
 * left alone; maxStepsPerTurn still ends the turn (and the unanswerable last nudge is removed).
 * Over 30 mixed turns the conversation stays valid and every turn ends with the required call.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createMessage } from '../../agent-process/conversation/message-factory.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import type { MessageEvent } from '../../shared/types/messages.ts';
import { succeededInConversation } from '../../bundles/base/extensions/required-tools-guard/required-call-check.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import { baseMessages, echoTool, failTool, makePlan, makeSwarm, startEngine, tempStateRoot, userEvent, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { pairingProblems, textOf } from './helpers/conversation-invariants.ts';
import { baseExtension, promptCapture } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

const NUDGE = 'requiredToolsGuard.nudge';
const script: JsonObject = {
  rules: [
    { match: 'required tools yet', toolCalls: [{ name: 'echo__say', args: { text: 'sent' } }], then: 'sent it' },
    { match: 'eager', toolCalls: [{ name: 'echo__say', args: { text: 'right away' } }], then: 'done' },
    { match: 'wrong', toolCalls: [{ name: 'fail__throw', args: { message: 'nope' } }], then: 'oops' },
    { match: 'lazy', reply: 'I will not' },
  ],
};

async function engine(config: JsonObject, maxSteps = 32, stateRoot?: string) {
  const capture = promptCapture();
  const h = await startEngine(makePlan({ tools: [echoTool(), failTool()], script, extensions: [baseExtension('required-tools-guard', config), capture.plan] }), {
    swarm: makeSwarm(['tester'], maxSteps),
    ...(stateRoot ? { stateRoot } : {}),
  });
  harnesses.push(h);
  return { h, capture };
}

const nudges = (messages: readonly Message[]) => messages.filter((m) => m.metadata[NUDGE] !== undefined);

describe('a turn may not end before a required tool succeeded', () => {
  test('a text-only answer gets a nudge, the model calls the tool, then the turn ends', async () => {
    const { h } = await engine({ requiredTools: ['echo__say'] });
    const result = await h.engine.runTurn(userEvent('lazy'));
    expect({ finish: result.finishReason, steps: result.stepCount, reply: result.responseText }).toEqual({ finish: 'text_response', steps: 3, reply: 'sent it' });
    const stored = baseMessages(h.paths);
    const [nudge] = nudges(stored);
    expect(nudge?.data).toEqual({
      role: 'user',
      content: 'You have not successfully called any of the required tools yet: echo__say. Call one of them before you finish this turn.',
    });
    expect(nudge?.metadata[NUDGE]).toEqual({ requiredTools: ['echo__say'], attempt: 1 });
    expect(nudge?.source).toEqual({ type: 'extension', extensionName: 'required-tools-guard' });
  });

  test('a successful required call earlier in the turn satisfies the guard: no nudge', async () => {
    const { h } = await engine({ requiredTools: ['echo__say', 'other__tool'] });
    const result = await h.engine.runTurn(userEvent('eager'));
    expect({ steps: result.stepCount, reply: result.responseText }).toEqual({ steps: 2, reply: 'done' });
    expect(nudges(baseMessages(h.paths))).toEqual([]);
  });

  test('a failed call of a required tool does not count', async () => {
    const { h } = await engine({ requiredTools: ['fail__throw', 'echo__say'] });
    const result = await h.engine.runTurn(userEvent('wrong'));
    expect({ steps: result.stepCount, reply: result.responseText }).toEqual({ steps: 4, reply: 'sent it' });
    expect(nudges(baseMessages(h.paths))).toHaveLength(1);
  });

  test('maxStepsPerTurn still ends the turn; the last, unanswered nudge is removed', async () => {
    const { h } = await engine({ requiredTools: ['other__tool'], errorMessage: 'Use {tools} first.' }, 4);
    const result = await h.engine.runTurn(userEvent('lazy'));
    expect({ finish: result.finishReason, steps: result.stepCount }).toEqual({ finish: 'max_steps', steps: 4 });
    const stored = baseMessages(h.paths);
    expect(nudges(stored).map(textOf)).toEqual(['Use other__tool first.', 'Use other__tool first.', 'Use other__tool first.']);
    expect(stored.at(-1)?.data.role).toBe('assistant');
    const warning = h.logLines().find((line) => line.code === 'E_REQUIRED_TOOLS_UNAVAILABLE');
    expect(warning?.msg).toContain('none of other__tool is in this step');
  });

  test('without requiredTools the guard does nothing', async () => {
    const { h } = await engine({});
    const result = await h.engine.runTurn(userEvent('lazy'));
    expect({ steps: result.stepCount, reply: result.responseText }).toEqual({ steps: 1, reply: 'I will not' });
  });

  test('a malformed tool name in requiredTools is E_EXT_CONFIG', async () => {
    await expect(engine({ requiredTools: ['echo_say'] })).rejects.toThrow(/E_EXT_CONFIG.*config\.requiredTools\.0/);
  });
});

describe('a resumed turn', () => {
  test('a required call made before a crash counts: the redelivered turn ends without a nudge or a second call', async () => {
    // Files as a process killed after the eager turn's tool call leaves them (cf. crash-recovery tests).
    const stateRoot = tempStateRoot();
    const event = userEvent('eager after crash');
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    const input = createMessage({ role: 'user', content: event.input ?? '' }, { type: 'user' }, { eventId: event.id, turnId: 'turn_crashed' });
    const call = createMessage(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'echo__say', input: { text: 'right away' } }] },
      { type: 'assistant', stepId: 'step_0' },
    );
    const done = createMessage(
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'echo__say', output: { type: 'text', value: 'right away' } }] },
      { type: 'tool', toolCallId: 'call_1', toolName: 'echo__say' },
    );
    mkdirSync(dirname(paths.messageEvents), { recursive: true });
    const events: MessageEvent[] = [input, call, done].map((message) => ({ type: 'append', message }));
    writeFileSync(paths.messageEvents, events.map((e) => `${JSON.stringify(e)}\n`).join(''));

    const { h } = await engine({ requiredTools: ['echo__say'] }, 32, stateRoot);
    const result = await h.engine.runTurn(event);
    expect({ reply: result.responseText, turnId: result.turnId }).toEqual({ reply: 'done', turnId: 'turn_crashed' });
    expect(nudges(baseMessages(h.paths))).toEqual([]);
    expect(h.runtimeEvents.filter((e) => e.type === 'tool.called')).toEqual([]);
  });

  test('succeededInConversation counts ok results after the input only, never errors or pending ones', () => {
    const required = new Set(['echo__say']);
    const input = createMessage({ role: 'user', content: 'go' }, { type: 'user' }, { eventId: 'evt_1' });
    const result = (output: { type: 'text'; value: string } | { type: 'json'; value: JsonObject }) =>
      createMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'echo__say', output }] }, { type: 'tool', toolCallId: 'c', toolName: 'echo__say' });
    const ok = result({ type: 'json', value: { sent: true } });
    expect(succeededInConversation(view([input, ok]), 'evt_1', required)).toBe(true);
    expect(succeededInConversation(view([ok, input]), 'evt_1', required)).toBe(false);
    expect(succeededInConversation(view([input, result({ type: 'json', value: { status: 'error', error: { code: 'E_TOOL', message: 'x' } } })]), 'evt_1', required)).toBe(false);
    expect(succeededInConversation(view([input, result({ type: 'json', value: { status: 'pending' } })]), 'evt_1', required)).toBe(false);
    expect(succeededInConversation(view([input, ok]), 'evt_other', required)).toBe(false);
  });

  test('succeededInConversation reads the turn’s own messages, from the end back to its input, however long the history', () => {
    const required = new Set(['echo__say']);
    const older = Array.from({ length: 1_000 }, (_, i) => createMessage({ role: 'user', content: `old ${i}` }, { type: 'user' }, { eventId: `evt_old_${i}` }));
    const input = createMessage({ role: 'user', content: 'go' }, { type: 'user' }, { eventId: 'evt_1' });
    const reply = createMessage({ role: 'assistant', content: 'no tool' }, { type: 'assistant', stepId: 'step_1' });
    const history = view([...older, input, reply]);
    expect(succeededInConversation(history, 'evt_1', required)).toBe(false);
    expect(history.reads).toBe(2);
  });
});

/** A conversation over `messages` that counts the messages read. */
function view(messages: Message[]): { messageCount: number; messageAt(index: number): Message | undefined; reads: number } {
  return {
    messageCount: messages.length,
    reads: 0,
    messageAt(index) {
      this.reads += 1;
      return messages.at(index);
    },
  };
}

describe('over many turns', () => {
  test('30 mixed turns: each ends with a successful required call, one nudge at most, valid pairs in every prompt', async () => {
    const { h, capture } = await engine({ requiredTools: ['echo__say'] });
    const kinds = ['lazy', 'eager', 'wrong'] as const;
    const expectedSteps = { lazy: 3, eager: 2, wrong: 4 };
    const expectedNudges = { lazy: 1, eager: 0, wrong: 1 };
    for (let turn = 0; turn < 30; turn++) {
      const kind = kinds[turn % kinds.length] ?? 'lazy';
      const event = userEvent(`${kind} ${turn}`);
      const result = await h.engine.runTurn(event);
      expect({ turn, finish: result.finishReason, steps: result.stepCount }).toEqual({ turn, finish: 'text_response', steps: expectedSteps[kind] });
      const stored = baseMessages(h.paths);
      const thisTurn = stored.slice(stored.findIndex((m) => m.metadata.eventId === event.id));
      expect({ turn, nudges: nudges(thisTurn).length }).toEqual({ turn, nudges: expectedNudges[kind] });
      const okSay = thisTurn.some((m) => m.data.role === 'tool' && m.data.content.some((part) => part.type === 'tool-result' && part.toolName === 'echo__say'));
      expect({ turn, okSay }).toEqual({ turn, okSay: true });
      for (const step of capture.steps.filter((s) => s.turnId === result.turnId)) expect(pairingProblems(step.messages)).toEqual([]);
      expect(pairingProblems(stored)).toEqual([]);
    }
  });
});
