/**
 * The turn / step loop (SPEC.md §2.7) and its observation log (SPEC.md §3.2): stop conditions,
 * errors as results, async replies, one turn at a time, redelivery, runtime events and trace
 * chaining, extension state and the event bus.
 */
import { beforeEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { newSpanId, newTraceId, SPAN_ID_PATTERN, TRACE_ID_PATTERN } from '../../shared/ids.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { AgentToolRuntime } from '../../shared/types/tools.ts';
import { probeData, resetProbes } from '../fixtures/engine/extensions/probe-log.ts';
import { holdGate } from '../fixtures/engine/tools/slow.ts';
import { waitFor, within } from '../helpers/wait-for.ts';
import { baseMessages, echoTool, fixtureExtension, fixtureTool, makePlan, makeSwarm, readJsonl, slowTool, startEngine, tempStateRoot, userEvent, type EngineHarness, trackEngines, asyncReply } from './helpers/engine-fixture.ts';

const harnesses = trackEngines();
const engineFor = harnesses.start;
beforeEach(() => resetProbes());

const reply = asyncReply;

describe('stop conditions', () => {
  test('a text reply ends the turn: text_response with the real step count', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: { rules: [{ match: 'go', toolCalls: [{ name: 'echo__say', args: { text: 'a' } }], then: 'finished' }] } }));
    const result = await h.engine.runTurn(userEvent('go'));
    expect(result).toMatchObject({ finishReason: 'text_response', responseText: 'finished', stepCount: 2 });
    expect(result.responseMessage?.data.role).toBe('assistant');
  });

  test('Swarm maxStepsPerTurn stops a turn that keeps calling tools: max_steps', async () => {
    const call = { toolCalls: [{ name: 'echo__say', args: { text: 'again' } }] };
    const script = { rules: [{ match: 'loop', ...call, then: { ...call, then: { ...call, then: { ...call, then: 'never reached' } } } }] };
    const h = await engineFor(makePlan({ tools: [echoTool()], script }), { swarm: makeSwarm(['tester'], 3) });
    const result = await h.engine.runTurn(userEvent('loop'));
    expect(result).toMatchObject({ finishReason: 'max_steps', stepCount: 3 });
    expect(h.runtimeEvents.filter((e) => e.type === 'step.started')).toHaveLength(3);
  });

  test('a model error ends the turn with finishReason error and a structured error; runTurn resolves', async () => {
    const h = await engineFor(makePlan({ model: { provider: 'openai-compatible', model: 'm', endpoint: 'http://127.0.0.1:9/v1', options: { maxRetries: 0 } } }));
    const result = await h.engine.runTurn(userEvent('hi'));
    expect(result.finishReason).toBe('error');
    expect(result.error?.code).toBe('E_MODEL_UNREACHABLE');
    expect(result.error?.suggestion).toContain('endpoint');
    expect(h.runtimeEvents.map((e) => e.type)).toEqual(['turn.started', 'step.started', 'step.failed', 'turn.failed']);
    // The input stays in the conversation; the next turn works on top of it.
    expect(baseMessages(h.paths).map((m) => m.data.content)).toEqual(['hi']);
  });

  test('the turn’s runtime events are in runtime-events.jsonl when its result is returned (before the reply leaves)', async () => {
    // fsync: never, so nothing is left to sync: the turn returns before the loop's next turn.
    const h = await engineFor(makePlan({ script: { default: 'hello back' } }));
    await h.engine.runTurn(userEvent('hi'));
    expect(readJsonl(h.paths.runtimeEvents).map((e) => (e as { type: string }).type)).toEqual(['turn.started', 'step.started', 'step.completed', 'turn.completed']);
  });

  test('an event that is a reply (metadata.inReplyTo) never becomes a turn', async () => {
    const h = await engineFor(makePlan());
    const result = await h.engine.runTurn(userEvent('late reply', { metadata: { inReplyTo: 'corr_9' } }));
    expect(result.finishReason).toBe('error');
    expect(result.error?.code).toBe('E_EVENT_IS_REPLY');
    expect(baseMessages(h.paths)).toEqual([]);
    expect(h.runtimeEvents).toEqual([]);
  });
});

describe('async replies (SPEC.md §2.6)', () => {
  test('a reply delivered during a turn enters before the next step, with its metadata', async () => {
    // The mock matches the LATEST user message: once the reply is in, the 'review' rule answers.
    const script: JsonObject = { rules: [{ match: 'wait', toolCalls: [{ name: 'slow__hold', args: { gate: 'turn-loop-async' } }] }, { match: 'review', reply: 'got: {{input}}' }] };
    const h = await engineFor(makePlan({ tools: [slowTool()], script }));
    const running = h.engine.runTurn(userEvent('wait for it'));
    // The reply arrives while step 0's tool call runs.
    const gate = holdGate('turn-loop-async');
    await within(gate.entered, "step 0's tool call to start");
    h.engine.deliverAsyncReply(reply('the review is positive'));
    gate.release();
    const result = await running;
    expect(result.responseText).toBe('got: the review is positive');
    expect(result.stepCount).toBe(2);
    const injected = baseMessages(h.paths).find((m) => m.metadata.__goondanInterAgentResponse !== undefined);
    expect(injected?.data).toEqual({ role: 'user', content: 'the review is positive' });
    expect(injected?.metadata.__goondanInterAgentResponse).toMatchObject({ kind: 'inter_agent_response', requestId: 'corr_1', fromAgentId: 'reviewer', status: 'ok', async: true });
  });

  test('a reply delivered while idle enters at the start of the next turn, before its input', async () => {
    const h = await engineFor(makePlan());
    h.engine.deliverAsyncReply(reply('', { status: 'timeout', error: { code: 'AGENT_REQUEST_TIMEOUT', category: 'system', message: 'no answer in 60000 ms' } }));
    const result = await h.engine.runTurn(userEvent('next question'));
    expect(result.responseText).toBe('next question');
    expect(baseMessages(h.paths).map((m) => m.data.content)).toEqual([
      'timeout (AGENT_REQUEST_TIMEOUT: no answer in 60000 ms)',
      'next question',
      [{ type: 'text', text: 'next question' }],
    ]);
  });
});

describe('one turn at a time', () => {
  test('concurrent runTurn calls are serialised by the engine', async () => {
    const script = { rules: [{ match: 'wait', toolCalls: [{ name: 'slow__wait', args: { ms: 80 } }], then: 'ok' }] };
    const h = await engineFor(makePlan({ tools: [slowTool()], script }));
    const [a, b] = await Promise.all([h.engine.runTurn(userEvent('wait 1')), h.engine.runTurn(userEvent('wait 2'))]);
    const turnEvents = h.runtimeEvents.filter((e) => e.type.startsWith('turn.')).map((e) => `${e.type}:${'turnId' in e ? e.turnId : ''}`);
    expect(turnEvents).toEqual([`turn.started:${a.turnId}`, `turn.completed:${a.turnId}`, `turn.started:${b.turnId}`, `turn.completed:${b.turnId}`]);
  });
});

describe('redelivery of an already answered event (ARCHITECTURE §3)', () => {
  test('returns the stored reply without calling the model; the input stays in the conversation once', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: { rules: [{ match: 'go', toolCalls: [{ name: 'echo__say', args: { text: 'a' } }], then: 'answer' }] } }));
    const event = userEvent('go');
    const first = await h.engine.runTurn(event);
    const eventsAfterFirst = h.runtimeEvents.length;
    const again = await h.engine.runTurn(event);
    expect(again).toMatchObject({ turnId: first.turnId, traceId: first.traceId, finishReason: 'text_response', responseText: 'answer' });
    expect(h.runtimeEvents).toHaveLength(eventsAfterFirst);
    expect(baseMessages(h.paths).filter((m) => m.metadata.eventId === event.id)).toHaveLength(1);
  });

  test('redelivered after later turns finished too, it gets its own reply, not the latest one', async () => {
    const h = await engineFor(makePlan({ script: { rules: [{ regex: '^ask (.+)$', reply: 'answer to {{match.1}}' }] } }));
    const first = userEvent('ask one');
    const original = await h.engine.runTurn(first);
    await h.engine.runTurn(userEvent('ask two'));
    const eventsBefore = h.runtimeEvents.length;
    // Both finished before their acks (a crash, a cluster node that lost its lease): the first comes again.
    const again = await h.engine.runTurn(first);
    expect(again).toMatchObject({ turnId: original.turnId, responseText: 'answer to one', stepCount: 1 });
    expect(h.runtimeEvents).toHaveLength(eventsBefore);
  });

  test('after a restart of the engine (state on disk) the same holds', async () => {
    const stateRoot = tempStateRoot();
    const event = userEvent('hello');
    const first = await startEngine(makePlan(), { stateRoot });
    const original = await first.engine.runTurn(event);
    await first.engine.close();
    const second = await engineFor(makePlan(), { stateRoot });
    const again = await second.engine.runTurn(event);
    expect(again.responseText).toBe(original.responseText);
    expect(again.turnId).toBe(original.turnId);
    expect(second.runtimeEvents).toEqual([]);
  });
});

describe('runtime events and trace chaining (SPEC.md §3.2)', () => {
  test('turn → step → tool spans chain, the traceId of the event is kept, counts and usage are real', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: { rules: [{ match: 'go', toolCalls: [{ name: 'echo__say', args: { text: 'a' } }], then: 'done' }] } }));
    const traceId = newTraceId();
    const parentSpanId = newSpanId();
    const result = await h.engine.runTurn(userEvent('go', { traceId, parentSpanId }));
    const events = h.runtimeEvents;
    expect(events.map((e) => e.type)).toEqual([
      'turn.started',
      'step.started',
      'tool.called',
      'tool.completed',
      'step.completed',
      'step.started',
      'step.delta',
      'step.completed',
      'turn.completed',
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ traceId, agentName: 'tester', instanceKey: 'user-1' });
      expect(event.spanId).toMatch(SPAN_ID_PATTERN);
    }
    const turn = events[0];
    expect(turn?.parentSpanId).toBe(parentSpanId);
    const steps = events.filter((e) => e.type === 'step.started');
    for (const step of steps) expect(step.parentSpanId).toBe(turn?.spanId);
    const tool = events.find((e) => e.type === 'tool.called');
    expect(tool?.parentSpanId).toBe(steps[0]?.spanId);
    const completed = events.at(-1);
    if (completed?.type !== 'turn.completed') throw new Error('expected turn.completed last');
    expect(completed.stepCount).toBe(2);
    expect(completed.duration).toBeGreaterThan(0);
    expect(completed.tokenUsage).toEqual(result.tokenUsage);
    const stepUsage = events.flatMap((e) => (e.type === 'step.completed' && e.tokenUsage ? [e.tokenUsage.totalTokens] : []));
    expect(stepUsage.reduce((a, b) => a + b, 0)).toBe(result.tokenUsage?.totalTokens ?? -1);
    expect(events.every((e) => e.type.split('.').length === 2)).toBe(true);
    // The streamed text is the step's text; the file holds every event but the live-only deltas, in order
    // (written at the end of the loop turn).
    expect(events.flatMap((e) => (e.type === 'step.delta' ? [e.text] : []))).toEqual(['done']);
    await new Promise((resolve) => setImmediate(resolve));
    const fromFile: unknown[] = readJsonl(h.paths.runtimeEvents);
    expect(fromFile).toEqual(JSON.parse(JSON.stringify(events.filter((e) => e.type !== 'step.delta'))));
  });

  test('without a valid traceId on the event a new 32-hex one is minted', async () => {
    const h = await engineFor(makePlan());
    const result = await h.engine.runTurn(userEvent('hi', { traceId: 'trace-123-abc' }));
    expect(result.traceId).toMatch(TRACE_ID_PATTERN);
    expect(h.runtimeEvents[0]?.parentSpanId).toBeUndefined();
  });
});

describe('extensions: state and events (SPEC.md §4.3)', () => {
  test('state persists per extension per instance and is restored at init; runtime and custom events reach subscribers', async () => {
    const stateRoot = tempStateRoot();
    const plan = makePlan({ extensions: [fixtureExtension('counter', 'stateful.ts')] });
    const first = await startEngine(plan, { stateRoot });
    await first.engine.runTurn(userEvent('one'));
    await first.engine.runTurn(userEvent('two'));
    await first.engine.close();
    expect(JSON.parse(readFileSync(`${first.paths.extensionsDir}/counter.json`, 'utf8'))).toEqual({ turns: 2 });
    expect(probeData.filter((d) => d.heard === 'turn.completed')).toHaveLength(2);
    expect(probeData.filter((d) => d.ping !== undefined).map((d) => d.ping)).toEqual(['{"turn":1}', '{"turn":2}']);

    resetProbes();
    await engineFor(plan, { stateRoot });
    expect(probeData[0]).toEqual({ initialState: { turns: 2 } });
  });
});

describe('self-restart signal (SPEC.md §2.8)', () => {
  test('a tool result with restartRequested: true calls onRestartRequested with the reason', async () => {
    const reasons: string[] = [];
    const tool = fixtureTool('self', 'restart.ts', [{ name: 'request', description: 'Restart.', parameters: { type: 'object', properties: { reason: { type: 'string' } } } }]);
    const h = await engineFor(makePlan({ tools: [tool], script: { rules: [{ match: 'restart', toolCalls: [{ name: 'self__request', args: { reason: 'config edited' } }] }] } }), {
      onRestartRequested: (reason) => reasons.push(reason),
    });
    await h.engine.runTurn(userEvent('restart'));
    expect(reasons).toEqual(['config edited']);
  });
});

describe('tool calls of one step', () => {
  test('run concurrently and are appended in call order', async () => {
    const script: JsonObject = {
      rules: [{ match: 'both', toolCalls: [{ name: 'slow__hold', args: { gate: 'turn-loop-both' } }, { name: 'slow__wait', args: { ms: 10 } }], then: '{{result}}' }],
    };
    const h = await engineFor(makePlan({ tools: [slowTool()], script }));
    const running = h.engine.runTurn(userEvent('both'));
    const gate = holdGate('turn-loop-both');
    await within(gate.entered, 'the first call to start');
    // Run one after the other, the second call could not finish while the first is held.
    const completed = () => h.runtimeEvents.flatMap((e) => (e.type === 'tool.completed' ? [e.toolCallId] : []));
    await waitFor('the second call to complete while the first is held (completed so far)', completed, (ids) => ids.includes('call_2'));
    gate.release();
    const result = await running;
    expect(result.responseText).toBe('{"held":"turn-loop-both"}\n{"waited":10}');
    expect(completed()).toEqual(['call_2', 'call_1']); // the second one finished first …
    expect(storedToolResultIds(h)).toEqual(['call_1', 'call_2']); // … but results keep call order
  });
});

describe('ctx.agents in middleware (SPEC.md §2.6)', () => {
  test('sends through the engine runtime with the turn trace; without a runtime it throws AgentRequestError', async () => {
    const sent: Array<{ target: string; input?: string; traceId?: string; parentSpanId?: string }> = [];
    const runtime: AgentToolRuntime = {
      request: async (target) => ({ eventId: 'e', target, correlationId: 'c', response: '' }),
      send: async (target, event) => (sent.push({ target, ...event }), { eventId: 'e', target, accepted: true }),
      spawn: async (target) => ({ target, instanceKey: 'k', spawned: true }),
      list: async () => ({ agents: [] }),
      catalog: async () => ({ swarmName: 's', entryAgent: 'a', selfAgent: 'a', availableAgents: [], callableAgents: [] }),
    };
    const h = await engineFor(makePlan({ extensions: [fixtureExtension('caller', 'agents-caller.ts')] }), { agentsRuntime: runtime });
    const result = await h.engine.runTurn(userEvent('hi'));
    const turnStarted = h.runtimeEvents[0];
    expect(sent).toEqual([{ target: 'boss', input: `started ${result.turnId}`, traceId: result.traceId, parentSpanId: turnStarted?.spanId }]);
    expect(probeData).toEqual([{ sent: true }]);

    resetProbes();
    const lonely = await engineFor(makePlan({ extensions: [fixtureExtension('caller', 'agents-caller.ts')] }));
    await lonely.engine.runTurn(userEvent('hi'));
    expect(probeData).toEqual([{ error: 'AgentRequestError:IPC_DELIVERY_FAILED' }]);
  });
});

function storedToolResultIds(h: EngineHarness): string[] {
  return baseMessages(h.paths).flatMap((m) => (m.source.type === 'tool' ? [m.source.toolCallId] : []));
}

