/**
 * The built-in extensions stacked on one agent, as a user would combine them: context-message,
 * inter-agent-response-format, required-tools-guard, tool-search, message-compaction, message-window
 * and logging. Over 40 turns with tool calls, nudges, async replies and searches, every prompt the
 * model receives stays valid and within the limits, and each extension still does its job.
 */
import { describe, expect, test } from 'bun:test';
import type { InterAgentReply } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import { messageCharacters } from '../../bundles/base/extensions/message-compaction/message-size.ts';
import { baseMessages, echoTool, failTool, makePlan, startEngine, userEvent, type EngineHarness, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { pairingProblems, textOf } from './helpers/conversation-invariants.ts';
import { baseExtension, blobTool, fixtureExtension, promptCapture } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

const script: JsonObject = {
  rules: [
    { match: 'required tools yet', toolCalls: [{ name: 'echo__say', args: { text: 'reporting' } }], then: 'reported' },
    { match: 'search', toolCalls: [{ name: 'tool-search__search', args: { query: 'text size' } }], then: { toolCalls: [{ name: 'echo__say', args: { text: 'x' } }], then: 'searched and said' } },
    { match: 'big', toolCalls: [{ name: 'blob__make', args: { size: 1200 } }, { name: 'echo__say', args: { text: 'with blob' } }], then: 'made' },
    { match: 'reply from', reply: 'noted the reply' },
    { match: 'say', toolCalls: [{ name: 'echo__say', args: { text: '{{input}}' } }], then: 'said' },
  ],
};

const characters = (messages: readonly Message[]): number => messages.reduce((sum, m) => sum + messageCharacters(m.data), 0);
const LIMITS = { maxMessages: 30, maxCharacters: 2200, retainLastMessages: 6, mode: 'truncate' as const, truncateToCharacters: 200 };

function reply(turn: number): InterAgentReply {
  return {
    kind: 'inter_agent_response',
    version: 1,
    requestId: `corr_${turn}`,
    requestEventId: `evt_${turn}`,
    fromAgentId: 'reviewer',
    toAgentId: 'tester',
    async: true,
    status: 'ok',
    text: `review ${turn}`,
    receivedAt: new Date().toISOString(),
  };
}

describe('all built-in extensions on one agent', () => {
  test('40 turns: valid pairs, input, pin, system prompt, limits, one summary, formatted replies, required call made', async () => {
    const capture = promptCapture();
    const h: EngineHarness = await startEngine(
      makePlan({
        tools: [echoTool(), failTool(), blobTool()],
        script,
        systemPrompt: 'You are the combined test agent.',
        extensions: [
          fixtureExtension('pin-marker'),
          baseExtension('inter-agent-response-format'),
          baseExtension('required-tools-guard', { requiredTools: ['echo__say'] }),
          baseExtension('tool-search', { maxResults: 3, alwaysInclude: ['echo__say'] }),
          baseExtension('message-compaction', { ...LIMITS }),
          baseExtension('message-window', { maxMessages: 34 }),
          baseExtension('logging'),
          capture.plan,
        ],
      }),
    );
    harnesses.push(h);

    const kinds = ['say', 'lazy', 'big', 'search', 'say', 'lazy', 'say', 'big'];
    let pinnedId: string | undefined;
    let summarySeen = false;
    const nudged = new Set<string>();
    const shortened = new Set<string>();
    let narrowedSteps = 0;
    for (let turn = 0; turn < 40; turn++) {
      if (turn % 3 === 1) h.engine.deliverAsyncReply(reply(turn));
      const text = turn === 2 ? '#pin say the motto is brevity' : `${kinds[turn % kinds.length]} ${turn}`;
      const event = userEvent(text);
      const result = await h.engine.runTurn(event);
      expect({ turn, finish: result.finishReason }).toEqual({ turn, finish: 'text_response' });

      const stored = baseMessages(h.paths);
      if (turn === 2) pinnedId = stored.find((m) => m.metadata.pinned === true && textOf(m).startsWith('#pin'))?.id;
      const prompts = capture.steps.filter((step) => step.turnId === result.turnId);
      expect(prompts.length).toBe(result.stepCount);
      narrowedSteps += prompts.filter((p) => !p.catalog.includes('fail__throw')).length;
      for (const [where, messages] of [...prompts.map((p) => [`turn ${turn} step ${p.stepIndex}`, p.messages] as const), [`turn ${turn} stored`, stored] as const]) {
        const chars = characters(messages);
        const summaries = messages.filter((m: Message) => m.metadata['compaction.summary'] !== undefined);
        for (const m of messages) if (m.metadata['requiredToolsGuard.nudge'] !== undefined) nudged.add(m.id);
        for (const m of messages) if (m.metadata['compaction.truncated'] !== undefined) shortened.add(m.id);
        if (summaries.length > 0) summarySeen = true;
        expect({
          where,
          problems: pairingProblems(messages),
          withinLimits: messages.length <= LIMITS.maxMessages && chars <= LIMITS.maxCharacters,
          system: messages[0]?.data.role,
          input: messages.some((m) => m.metadata.eventId === event.id),
          pinned: pinnedId === undefined || messages.some((m) => m.id === pinnedId),
          summaries: summaries.length,
          unformattedReplies: messages.filter((m) => m.metadata.__goondanInterAgentResponse !== undefined && !textOf(m).startsWith('[reply from reviewer · ok')).length,
        }).toEqual({ where, problems: [], withinLimits: true, system: 'system', input: true, pinned: true, summaries: summarySeen ? 1 : 0, unformattedReplies: 0 });
      }
      // required-tools-guard: every turn contains a successful echo__say call.
      const thisTurn = stored.slice(stored.findIndex((m) => m.metadata.eventId === event.id));
      const said = thisTurn.some((m) => m.data.role === 'tool' && m.data.content.some((part) => part.type === 'tool-result' && part.toolName === 'echo__say'));
      expect({ turn, said }).toEqual({ turn, said: true });
    }
    // Each extension really acted during the run.
    expect(summarySeen).toBe(true);
    expect(nudged.size).toBeGreaterThanOrEqual(10);
    expect(shortened.size).toBeGreaterThan(0);
    expect(narrowedSteps).toBeGreaterThan(10);
    // logging saw every turn.
    expect(h.logLines().filter((line) => line.extension === 'logging' && line.event === 'turn.completed')).toHaveLength(40);
  });
});
