/**
 * inter-agent-response-format through the real engine: async replies injected by the engine are
 * rewritten (replace, same id, metadata kept) into "[reply from … · status · request …]" text
 * before the model sees them — at turn start and mid-turn — exactly once, over many turns.
 */
import { describe, expect, test } from 'bun:test';
import type { InterAgentReply } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { formatReply } from '../../bundles/base/extensions/inter-agent-response-format/format-reply.ts';
import { Conversation } from '../../agent-process/conversation/conversation-state.ts';
import { baseMessages, makePlan, slowTool, startEngine, userEvent, trackEngines, asyncReply } from '../agent-process/helpers/engine-fixture.ts';
import { holdGate } from '../fixtures/engine/tools/slow.ts';
import { within } from '../helpers/wait-for.ts';
import { textOf } from './helpers/conversation-invariants.ts';
import { baseExtension, promptCapture } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

const REPLY = '__goondanInterAgentResponse';

const reply = (requestId: string, text: string, extra: Partial<InterAgentReply> = {}) => asyncReply(text, { requestId, ...extra });

async function engine(config: JsonObject = {}, script: JsonObject = {}) {
  const capture = promptCapture();
  const h = await startEngine(makePlan({ tools: [slowTool()], script, extensions: [baseExtension('inter-agent-response-format', config), capture.plan] }));
  harnesses.push(h);
  return { h, capture };
}

describe('replies become readable before the model sees them', () => {
  test('a reply that arrived while idle is formatted in the first step of the next turn; id and metadata stay', async () => {
    const { h, capture } = await engine();
    h.engine.deliverAsyncReply(reply('corr_1', 'Looks good, ship it.'));
    await h.engine.runTurn(userEvent('next question'));
    const seen = capture.steps[0]?.messages.find((m) => m.metadata[REPLY] !== undefined);
    expect(seen && textOf(seen)).toBe('[reply from reviewer · ok · request corr_1]\nLooks good, ship it.');
    const stored = baseMessages(h.paths).find((m) => m.metadata[REPLY] !== undefined);
    expect(stored?.id).toBe(seen?.id);
    expect(stored?.data).toEqual({ role: 'user', content: '[reply from reviewer · ok · request corr_1]\nLooks good, ship it.' });
    expect(stored?.metadata[REPLY]).toMatchObject({ kind: 'inter_agent_response', requestId: 'corr_1', fromAgentId: 'reviewer', status: 'ok' });
    expect(stored?.metadata['interAgentResponse.formatted']).toBe(true);
  });

  test('a reply that arrives during a turn is formatted before the next step', async () => {
    const script: JsonObject = { rules: [{ match: 'wait', toolCalls: [{ name: 'slow__hold', args: { gate: 'format-mid-turn' } }] }, { match: 'reviewer', reply: 'got: {{input}}' }] };
    const { h, capture } = await engine({}, script);
    const running = h.engine.runTurn(userEvent('wait for it'));
    // The reply arrives while step 0's tool call runs.
    const gate = holdGate('format-mid-turn');
    await within(gate.entered, "step 0's tool call to start");
    h.engine.deliverAsyncReply(reply('corr_2', 'positive'));
    gate.release();
    const result = await running;
    expect(result.responseText).toBe('got: [reply from reviewer · ok · request corr_2]\npositive');
    expect(capture.steps.map((step) => step.messages.filter((m) => m.metadata[REPLY] !== undefined).map(textOf))).toEqual([
      [],
      ['[reply from reviewer · ok · request corr_2]\npositive'],
    ]);
  });

  test('errors and timeouts show their code and message; includeRequestId false drops the id', async () => {
    const { h, capture } = await engine({ includeRequestId: false });
    h.engine.deliverAsyncReply(reply('corr_3', '', { status: 'error', error: { code: 'AGENT_TURN_FAILED', category: 'system', message: 'model unavailable' } }));
    h.engine.deliverAsyncReply(reply('corr_4', '', { status: 'timeout', fromAgentId: 'translator', error: { code: 'AGENT_REQUEST_TIMEOUT', category: 'system', message: 'no answer in 60000 ms' } }));
    await h.engine.runTurn(userEvent('so?'));
    expect(capture.steps[0]?.messages.filter((m) => m.metadata[REPLY] !== undefined).map(textOf)).toEqual([
      '[reply from reviewer · error]\nAGENT_TURN_FAILED: model unavailable',
      '[reply from translator · timeout]\nAGENT_REQUEST_TIMEOUT: no answer in 60000 ms',
    ]);
  });
});

describe('over many turns', () => {
  test('30 turns with replies arriving between them: each is formatted exactly once and keeps its id', async () => {
    const { h, capture } = await engine();
    const firstText = new Map<string, string>();
    for (let turn = 0; turn < 30; turn++) {
      if (turn % 2 === 0) h.engine.deliverAsyncReply(reply(`corr_${turn}`, `answer ${turn}`));
      if (turn % 5 === 0) h.engine.deliverAsyncReply(reply(`corr_x${turn}`, '', { status: 'timeout' }));
      const result = await h.engine.runTurn(userEvent(`question ${turn}`));
      for (const step of capture.steps.filter((s) => s.turnId === result.turnId)) {
        for (const message of step.messages.filter((m) => m.metadata[REPLY] !== undefined)) {
          const text = textOf(message);
          expect(text).toMatch(/^\[reply from reviewer · (ok|timeout) · request corr_x?\d+\]\n[^[]+$/);
          // Formatted once: later prompts show the same message, same id, same text.
          expect(firstText.get(message.id) ?? text).toBe(text);
          firstText.set(message.id, text);
        }
      }
    }
    expect(firstText.size).toBe(15 + 6);
    expect([...firstText.values()].filter((text) => text.endsWith('· timeout · request corr_x0]\nno reply before the request timed out'))).toHaveLength(1);
  });

  test('a step reads only the messages added since the previous step: never the whole history', async () => {
    // No prompt capture here: it reads every prompt whole.
    const h = await startEngine(makePlan({ extensions: [baseExtension('inter-agent-response-format', {})] }));
    harnesses.push(h);
    for (let turn = 0; turn < 10; turn++) await h.engine.runTurn(userEvent(`history ${turn}`));
    const counted = countConversationReads();
    try {
      for (let turn = 0; turn < 10; turn++) {
        h.engine.deliverAsyncReply(reply(`corr_${turn}`, `answer ${turn}`));
        await h.engine.runTurn(userEvent(`question ${turn}`));
      }
    } finally {
      counted.restore();
    }
    expect(counted.wholeHistoryReads).toBe(0);
    // Per turn: the reply, the input, the answer, the message the previous step saw, and context-message's look at the first.
    expect(counted.messageReads).toBeLessThanOrEqual(10 * 6);
    const formatted = baseMessages(h.paths).filter((m) => m.metadata[REPLY] !== undefined).map(textOf);
    expect(formatted).toHaveLength(10);
    for (const text of formatted) expect(text).toMatch(/^\[reply from reviewer · ok · request corr_\d\]\nanswer \d$/);
  });
});

/** Counts, on every conversation, reads of the whole history (`nextMessages`) and of single messages (`messageAt`). */
function countConversationReads(): { wholeHistoryReads: number; messageReads: number; restore(): void } {
  const prototype = Conversation.prototype;
  const whole = Object.getOwnPropertyDescriptor(prototype, 'nextMessages');
  const single = prototype.messageAt;
  if (whole?.get === undefined) throw new Error('Conversation.nextMessages is not a getter any more');
  const getWhole = whole.get;
  const counts = {
    wholeHistoryReads: 0,
    messageReads: 0,
    restore() {
      Object.defineProperty(prototype, 'nextMessages', whole);
      prototype.messageAt = single;
    },
  };
  Object.defineProperty(prototype, 'nextMessages', {
    ...whole,
    get(this: Conversation) {
      counts.wholeHistoryReads += 1;
      return getWhole.call(this);
    },
  });
  prototype.messageAt = function (this: Conversation, index: number) {
    counts.messageReads += 1;
    return single.call(this, index);
  };
  return counts;
}

describe('formatReply (pure)', () => {
  const facts = { from: 'coder', status: 'ok', requestId: 'corr_9' };
  test('ok replies keep their text; an empty one says so', () => {
    expect(formatReply(facts, 'done', true)).toBe('[reply from coder · ok · request corr_9]\ndone');
    expect(formatReply(facts, '', false)).toBe('[reply from coder · ok]\n(empty reply)');
  });
  test('error and timeout without details fall back to the text, then to a plain statement', () => {
    expect(formatReply({ ...facts, status: 'error' }, 'it broke', true)).toBe('[reply from coder · error · request corr_9]\nit broke');
    expect(formatReply({ ...facts, status: 'timeout' }, '', true)).toBe('[reply from coder · timeout · request corr_9]\nno reply before the request timed out');
    // The engine's stand-in text for a failed reply without details is just the status.
    expect(formatReply({ ...facts, status: 'error' }, 'error', true)).toBe('[reply from coder · error · request corr_9]\nthe request failed');
  });
});
