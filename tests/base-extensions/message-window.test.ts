/**
 * message-window through the real engine (mock model): over 40 turns of plain, one-call and
 * two-step tool turns, every prompt the model receives and the stored history after every turn
 * keep tool calls with their results, the current input, the pinned message and the system prompt,
 * stay within maxMessages, start with a user message, and lose only the oldest messages.
 */
import { describe, expect, test } from 'bun:test';
import type { Message } from '../../shared/types/messages.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { planWindow } from '../../bundles/base/extensions/message-window/window-plan.ts';
import { baseMessages, echoTool, makePlan, startEngine, userEvent, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { pairingProblems, startsWithUser, textOf } from './helpers/conversation-invariants.ts';
import { baseExtension, fixtureExtension, promptCapture } from './helpers/extension-plans.ts';
import { assistantCalls, toolResult, userMessage, systemPrompt, assistantText } from './helpers/message-builders.ts';

const harnesses = trackEngines();

const script: JsonObject = {
  rules: [
    { match: 'double', toolCalls: [{ name: 'echo__say', args: { text: 'a' } }, { name: 'echo__say', args: { text: 'b' } }], then: { toolCalls: [{ name: 'echo__say', args: { text: 'c' } }], then: 'finished' } },
    { match: 'call', toolCalls: [{ name: 'echo__say', args: { text: 'echo of {{input}}' } }], then: 'done' },
  ],
};

function inputFor(turn: number): { text: string; reply: string } {
  if (turn === 3) return { text: '#pin remember the number 42', reply: '#pin remember the number 42' };
  switch (turn % 4) {
    case 0:
      return { text: `call ${turn}`, reply: 'done' };
    case 1:
      return { text: `double ${turn}`, reply: 'finished' };
    case 2:
      return { text: `plain ${turn}`, reply: `plain ${turn}` };
    default:
      return { text: `call again ${turn}`, reply: 'done' };
  }
}

describe('message-window keeps the model input valid over many turns', () => {
  test('40 turns with maxMessages 10: pairs, input, pin, system prompt, limit, user-first, oldest-first', async () => {
    const MAX = 10;
    const capture = promptCapture();
    const h = await startEngine(
      makePlan({
        tools: [echoTool()],
        script,
        systemPrompt: 'You are a test agent.',
        extensions: [fixtureExtension('pin-marker'), baseExtension('message-window', { maxMessages: MAX }), capture.plan],
      }),
    );
    harnesses.push(h);

    const everSeen: string[] = [];
    const see = (messages: readonly Message[]): void => {
      for (const message of messages) if (!everSeen.includes(message.id)) everSeen.push(message.id);
    };
    let pinnedId: string | undefined;
    let windowed = false;

    for (let turn = 0; turn < 40; turn++) {
      const { text, reply } = inputFor(turn);
      const event = userEvent(text);
      const result = await h.engine.runTurn(event);
      // The window never confuses the model: each scripted turn ends with its scripted reply.
      expect({ turn, reply: result.responseText, finish: result.finishReason }).toEqual({ turn, reply, finish: 'text_response' });

      const prompts = capture.steps.filter((step) => step.turnId === result.turnId).map((step) => step.messages);
      expect(prompts.length).toBe(result.stepCount);
      const stored = baseMessages(h.paths);
      if (turn === 3) pinnedId = stored.find((m) => m.metadata.pinned === true && textOf(m).includes('#pin'))?.id;
      for (const [where, messages] of [...prompts.map((p, i) => [`turn ${turn} step ${i}`, p] as const), [`turn ${turn} stored`, stored] as const]) {
        see(messages);
        expect({ where, problems: pairingProblems(messages) }).toEqual({ where, problems: [] });
        expect({ where, count: messages.length <= MAX }).toEqual({ where, count: true });
        expect({ where, first: messages[0]?.data.role, context: messages[0]?.metadata.__goondanContextMessage !== undefined }).toEqual({ where, first: 'system', context: true });
        expect({ where, input: messages.some((m) => m.source.type === 'user' && m.metadata.eventId === event.id) }).toEqual({ where, input: true });
        if (pinnedId !== undefined) expect({ where, pinned: messages.some((m) => m.id === pinnedId) }).toEqual({ where, pinned: true });
        expect({ where, userFirst: startsWithUser(messages) }).toEqual({ where, userFirst: true });
      }

      // Oldest first: what is left of the unprotected history is its newest part.
      const isProtected = (m: Message): boolean => m.data.role === 'system' || m.metadata.pinned === true || m.metadata.eventId === event.id;
      const present = new Set(stored.map((m) => m.id));
      const unprotectedSeen = everSeen.filter((id) => {
        const m = stored.find((s) => s.id === id);
        return m === undefined || !isProtected(m);
      });
      const kept = unprotectedSeen.filter((id) => present.has(id));
      expect({ turn, kept }).toEqual({ turn, kept: unprotectedSeen.slice(unprotectedSeen.length - kept.length) });
      if (everSeen.length > stored.length) windowed = true;
    }
    expect(windowed).toBe(true);
    expect(pinnedId).toBeDefined();
  });

  test('under maxMessages nothing is removed', async () => {
    const capture = promptCapture();
    const h = await startEngine(makePlan({ tools: [echoTool()], script, extensions: [baseExtension('message-window', { maxMessages: 50 }), capture.plan] }));
    harnesses.push(h);
    for (let turn = 0; turn < 5; turn++) await h.engine.runTurn(userEvent(`call ${turn}`));
    // 5 turns × (input, call, result, reply); no system prompt configured.
    expect(baseMessages(h.paths)).toHaveLength(20);
  });

  test('when protected messages alone exceed maxMessages they all stay and a warning says so', async () => {
    const h = await startEngine(
      makePlan({ systemPrompt: 'Be brief.', extensions: [fixtureExtension('pin-marker'), baseExtension('message-window', { maxMessages: 2 })] }),
    );
    harnesses.push(h);
    await h.engine.runTurn(userEvent('#pin first'));
    await h.engine.runTurn(userEvent('#pin second'));
    const third = userEvent('third');
    await h.engine.runTurn(third);
    const stored = baseMessages(h.paths);
    expect(stored.filter((m) => m.metadata.pinned === true).map(textOf)).toEqual(['Be brief.', '#pin first', '#pin second']);
    expect(stored.some((m) => m.metadata.eventId === third.id)).toBe(true);
    const warnings = h.logLines().filter((line) => line.code === 'E_WINDOW_LIMIT_UNREACHABLE');
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0]?.suggestion).toBeString();
  });
});

describe('message-window config is checked when the agent starts', () => {
  test('maxMessages 0 and unknown keys are E_EXT_CONFIG naming the key', async () => {
    const zero = startEngine(makePlan({ extensions: [baseExtension('message-window', { maxMessages: 0 })] }));
    await expect(zero).rejects.toThrow(/E_EXT_CONFIG.*config\.maxMessages: must be >= 1/);
    const typo = startEngine(makePlan({ extensions: [baseExtension('message-window', { maxMesages: 10 })] }));
    await expect(typo).rejects.toThrow(/unknown key "maxMesages"/);
  });
});

describe('planWindow (pure)', () => {
  const input = userMessage('now', { eventId: 'evt_now' });
  test('drops whole tool-call units, oldest first, never splitting a call from its result', () => {
    const messages = [
      systemPrompt('sys'),
      userMessage('u1'),
      assistantCalls(['c1', 'c2']),
      toolResult('c1'),
      toolResult('c2'),
      assistantText('a1'),
      userMessage('u2'),
      assistantText('a2'),
      input,
    ];
    const plan = planWindow(messages, { maxMessages: 5, startWithUserMessage: true, inputEventId: 'evt_now' });
    const kept = messages.filter((m) => !plan.remove.includes(m.id));
    expect(kept.map((m) => m.data.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(pairingProblems(kept)).toEqual([]);
  });

  test('after a cut, leading assistant messages go too unless startWithUserMessage is false', () => {
    const messages = [userMessage('u1'), assistantText('a1'), assistantText('a1b'), userMessage('u2'), input];
    const userFirst = planWindow(messages, { maxMessages: 4, startWithUserMessage: true, inputEventId: 'evt_now' });
    expect(messages.filter((m) => !userFirst.remove.includes(m.id)).map(textOf)).toEqual(['u2', 'now']);
    const plain = planWindow(messages, { maxMessages: 4, startWithUserMessage: false, inputEventId: 'evt_now' });
    expect(messages.filter((m) => !plain.remove.includes(m.id)).map(textOf)).toEqual(['a1', 'a1b', 'u2', 'now']);
  });

  test('orphan tool results go; pinned messages and the current input stay even when old', () => {
    const pinned = { ...assistantCalls(['p1']), metadata: { pinned: true } };
    const messages = [toolResult('gone'), pinned, toolResult('p1'), userMessage('u1'), assistantText('a1'), input, assistantText('late')];
    const plan = planWindow(messages, { maxMessages: 4, startWithUserMessage: true, inputEventId: 'evt_now' });
    const kept = messages.filter((m) => !plan.remove.includes(m.id));
    expect(kept).toEqual([pinned, messages[2], input, messages[6]].filter((m): m is Message => m !== undefined));
    expect(plan.remaining).toBe(4);
  });
});
