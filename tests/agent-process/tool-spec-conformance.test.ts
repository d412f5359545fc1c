/**
 * The last gaps to the tool spec (issue 11 "The tool spec, to the letter"), through the real
 * engine: §7.3 the Console-compatible ToolContext.logger, §2.4 the per-export time limit that
 * honours a tool's own longer limit, §10.2 pending results whose completion enters the
 * conversation, §10.1 the spec's ToolResult shape from middleware, and Appendix A `Date` createdAt.
 */
import { describe, expect, test } from 'bun:test';
import type { JsonObject } from '../../shared/types/json.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { release } from '../fixtures/engine/tools/spec.ts';
import { waitUntil } from '../e2e/daemon-harness.ts';
import { baseMessages, echoTool, errorOf, fixtureExtension, fixtureTool, makePlan, storedToolResults, trackEngines, userEvent } from './helpers/engine-fixture.ts';
import type { ToolExportPlan } from '../../shared/types/bundle.ts';
import { buildAgentPlan, buildSwarmPlan, loadBundle } from '../../shared/config/index.ts';
import { tempBundle } from '../config/temp-bundle.ts';

const engines = trackEngines();
const noArgs = { type: 'object', properties: {} } as const;

function specTool(overrides: Partial<Record<string, Partial<ToolExportPlan>>> = {}, timeoutMs?: number) {
  const declared: ToolExportPlan[] = [
    { name: 'log', description: 'Log through ctx.logger.', parameters: noArgs },
    { name: 'sleep', description: 'Sleep ms.', parameters: { type: 'object', properties: { ms: { type: 'integer' }, timeoutMs: { type: 'integer' } }, required: ['ms'] } },
    { name: 'later', description: 'Start pending work.', parameters: { type: 'object', properties: { job: { type: 'string' } }, required: ['job'] } },
    { name: 'release', description: 'Finish pending work.', parameters: { type: 'object', properties: { job: { type: 'string' }, error: { type: 'string' } }, required: ['job'] } },
    { name: 'lookalike', description: 'Looks pending.', parameters: noArgs },
  ];
  const exports = declared.map((e) => ({ ...e, ...overrides[e.name] }));
  return fixtureTool('spec', 'spec.ts', exports, timeoutMs === undefined ? {} : { timeoutMs });
}

const script = (rules: JsonObject[]): JsonObject => ({ rules });
const calls = (match: string, toolCalls: JsonObject[], then: JsonObject | string = '{{result}}'): JsonObject => ({ match, toolCalls, then });

describe('tool spec §7.3: ToolContext.logger is Console-compatible', () => {
  test('log/info/warn/error/debug write structured lines with the trace fields; pino’s object-first form keeps its fields', async () => {
    const h = await engines.start(makePlan({ tools: [specTool()], script: script([calls('log', [{ name: 'spec__log' }])]) }));
    const result = await h.engine.runTurn(userEvent('log please'));
    expect(result.responseText).toBe('logged');
    const lines = h.logLines().filter((line) => line.toolName === 'spec__log');
    const byMsg = (msg: string) => lines.find((line) => line.msg === msg);
    const call = h.runtimeEvents.find((e): e is Extract<RuntimeEvent, { type: 'tool.called' }> => e.type === 'tool.called');
    expect(byMsg('read 3 files')).toMatchObject({ level: 30, traceId: result.traceId, toolCallId: call?.toolCallId });
    expect(byMsg('opened a.txt')).toMatchObject({ level: 30, path: 'a.txt' });
    expect(byMsg('disk nearly full')).toMatchObject({ level: 40, err: { message: 'disk nearly full' } });
    expect(byMsg('step 1 of 2')).toMatchObject({ level: 20 });
    expect(byMsg("failed: { reason: 'none really' }")).toMatchObject({ level: 50 });
    for (const line of lines) expect(line.spanId).toBe(call?.spanId);
  });
});

describe('tool spec §2.4: the time limit of a call', () => {
  test('an export’s timeoutMs ends a longer call with E_TOOL_TIMEOUT whose suggestion names what can be changed', async () => {
    const tool = specTool({ sleep: { timeoutMs: 50 } });
    const h = await engines.start(makePlan({ tools: [tool], script: script([calls('nap', [{ name: 'spec__sleep', args: { ms: 5000 } }])]) }));
    await h.engine.runTurn(userEvent('nap'));
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error).toMatchObject({ code: 'E_TOOL_TIMEOUT' });
    expect(String(error?.message)).toContain('within 50 ms');
    expect(String(error?.suggestion)).toContain("timeoutMs on the Tool's export or in the agent's tools[].config");
  });

  test("the agent's tools[].config.timeoutMs wins over the export's own", async () => {
    const tool = specTool({ sleep: { timeoutMs: 60_000 } }, 50);
    const h = await engines.start(makePlan({ tools: [tool], script: script([calls('nap', [{ name: 'spec__sleep', args: { ms: 5000 } }])]) }));
    await h.engine.runTurn(userEvent('nap'));
    expect(errorOf(storedToolResults(h.paths)[0]?.output)).toMatchObject({ code: 'E_TOOL_TIMEOUT' });
    expect(String(errorOf(storedToolResults(h.paths)[0]?.output)?.message)).toContain('within 50 ms');
  });

  test('timeoutFromArg: a call’s own longer limit is honoured instead of the export’s', async () => {
    const tool = specTool({ sleep: { timeoutMs: 50, timeoutFromArg: 'timeoutMs' } });
    const h = await engines.start(makePlan({ tools: [tool], script: script([calls('nap', [{ name: 'spec__sleep', args: { ms: 300, timeoutMs: 1000 } }])]) }));
    const result = await h.engine.runTurn(userEvent('nap'));
    expect(result.responseText).toBe('slept 300 ms');
  });

  test('the default limit (engine option, 5 minutes in production) applies when the export declares none', async () => {
    const h = await engines.start(makePlan({ tools: [specTool()], script: script([calls('nap', [{ name: 'spec__sleep', args: { ms: 5000 } }])]) }), { toolTimeoutMs: 50 });
    await h.engine.runTurn(userEvent('nap'));
    expect(errorOf(storedToolResults(h.paths)[0]?.output)).toMatchObject({ code: 'E_TOOL_TIMEOUT' });
  });
});

describe("tool spec §2.4: the built-in tools' own limits are honoured", () => {
  test('bash__exec with timeoutMs longer than the engine’s limit runs to the end (timeoutFromArg)', async () => {
    const bundle = tempBundle({
      'goondan.yaml': `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec:
  provider: mock
  model: m1
  options:
    rules:
      - match: long
        toolCalls: [{ name: bash__exec, args: { command: "sleep 0.5 && echo finished", timeoutMs: 20000 } }]
        then: "{{result.stdout}}{{error}}"
      - match: short
        toolCalls: [{ name: bash__exec, args: { command: "sleep 5 && echo finished" } }]
        then: "{{result.stdout}}{{error}}"
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: a }
spec: { modelConfig: { modelRef: Model/m }, tools: [Tool/bash] }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec: { entryAgent: Agent/a, agents: [Agent/a] }
`,
    });
    try {
      const loaded = await loadBundle(bundle.dir, { env: {} });
      expect(loaded.errors).toEqual([]);
      // An engine whose default limit (5 minutes in production) is 200 ms here.
      const h = await engines.start(buildAgentPlan(loaded, 's', 'a', {}), { swarm: buildSwarmPlan(loaded, 's'), toolTimeoutMs: 200 });
      expect((await h.engine.runTurn(userEvent('long'))).responseText.trim()).toBe('finished');
      expect((await h.engine.runTurn(userEvent('short'))).responseText).toContain('E_TOOL_TIMEOUT');
    } finally {
      bundle.remove();
    }
  });
});

describe('tool spec §10.2: pending results', () => {
  test('ctx.pending(handle) reaches the model as {status: "pending", handle}; the completion enters before the next step', async () => {
    const plan = makePlan({
      tools: [specTool()],
      script: script([
        { match: 'pending work finished', reply: 'seen: {{input}}' },
        calls('start', [{ name: 'spec__later', args: { job: 'job-1' } }], { toolCalls: [{ name: 'spec__release', args: { job: 'job-1' } }], then: 'released' }),
      ]),
    });
    const h = await engines.start(plan);
    const result = await h.engine.runTurn(userEvent('start the job'));
    expect(storedToolResults(h.paths)[0]?.output).toEqual({ type: 'json', value: { status: 'pending', handle: 'job-1', output: { job: 'job-1', note: 'running in the background' } } });
    expect(h.runtimeEvents.find((e) => e.type === 'tool.completed' && e.toolName === 'spec__later')).toMatchObject({ status: 'pending' });
    expect(result.responseText).toBe('seen: [spec__later job-1] The pending work finished: {"job":"job-1","done":true}');
    const completion = baseMessages(h.paths).find((m) => m.metadata.__goondanToolCompletion !== undefined);
    expect(completion?.metadata.__goondanToolCompletion).toEqual({ toolCallId: 'call_1', toolName: 'spec__later', handle: 'job-1', status: 'ok' });
  });

  test('a completion that arrives while the agent is idle enters at the start of the next turn; a failure says so', async () => {
    const plan = makePlan({ tools: [specTool()], script: script([calls('start', [{ name: 'spec__later', args: { job: 'job-2' } }], 'started'), { match: 'news', reply: 'ok' }]) });
    const h = await engines.start(plan);
    expect((await h.engine.runTurn(userEvent('start'))).responseText).toBe('started');
    expect(release('job-2', { error: 'the disk is full' })).toBe(true);
    await waitUntil(() => h.logLines().some((line) => line.msg === 'pending tool work completed'), 'the completion of job-2 to be logged');
    await h.engine.runTurn(userEvent('any news?'));
    const texts = baseMessages(h.paths).map((m) => (typeof m.data.content === 'string' ? m.data.content : ''));
    const failed = texts.findIndex((t) => t.startsWith('[spec__later job-2] The pending work failed: E_JOB_FAILED: the disk is full'));
    expect(failed).toBeGreaterThan(0);
    expect(texts.indexOf('any news?')).toBe(failed + 1);
  });

  test('only ctx.pending() means pending: a plain {status: "pending"} object is an ordinary output', async () => {
    const h = await engines.start(makePlan({ tools: [specTool()], script: script([calls('look', [{ name: 'spec__lookalike' }])]) }));
    await h.engine.runTurn(userEvent('look'));
    expect(storedToolResults(h.paths)[0]?.output).toEqual({ type: 'json', value: { status: 'pending', handle: 'not-really' } });
    expect(h.runtimeEvents.find((e) => e.type === 'tool.completed')).toMatchObject({ status: 'ok' });
  });
});

describe('tool spec §10.1: a middleware may answer with the spec’s ToolResult shape', () => {
  test('{status, output} without ids is accepted; the engine fills in the call id and name', async () => {
    const plan = makePlan({ tools: [echoTool()], extensions: [fixtureExtension('spec-shaped', 'spec-shaped.ts')], script: script([calls('say', [{ name: 'echo__say', args: { text: 'hi' } }])]) });
    const h = await engines.start(plan);
    const result = await h.engine.runTurn(userEvent('say'));
    expect(JSON.parse(result.responseText)).toEqual({ intercepted: 'echo__say' });
    const stored = storedToolResults(h.paths)[0];
    expect(stored).toMatchObject({ toolCallId: 'call_1', toolName: 'echo__say' });
  });

  test('{status: "error", error: {message}} gets the spec defaults (code E_TOOL)', async () => {
    const plan = makePlan({ tools: [echoTool()], extensions: [fixtureExtension('spec-shaped', 'spec-shaped.ts', { answer: 'error' })], script: script([calls('say', [{ name: 'echo__say', args: { text: 'hi' } }])]) });
    const h = await engines.start(plan);
    await h.engine.runTurn(userEvent('say'));
    expect(errorOf(storedToolResults(h.paths)[0]?.output)).toEqual({ code: 'E_TOOL', message: 'refused by the fixture' });
  });
});

describe('tool spec Appendix A: Message.createdAt may be a Date', () => {
  test('an extension’s message event with a Date createdAt is stored with its ISO string', async () => {
    const h = await engines.start(makePlan({ extensions: [fixtureExtension('dated-message', 'dated-message.ts')], script: script([{ match: 'hello', reply: 'hi' }]) }));
    const result = await h.engine.runTurn(userEvent('hello'));
    expect(result.finishReason).toBe('text_response');
    const note = baseMessages(h.paths).find((m) => m.id === `note-${result.turnId}`);
    expect(note?.createdAt).toBe('2026-02-12T10:00:00.000Z');
  });
});
