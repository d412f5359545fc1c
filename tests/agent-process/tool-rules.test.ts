/**
 * Tool spec v2 §2 (seed 000), rule by rule, through a real engine with the mock model and real
 * tool entry modules from tests/fixtures/engine.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError } from '../../agent-process/engine/engine-error.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { AgentToolRuntime } from '../../shared/types/tools.ts';
import { SPAN_ID_PATTERN } from '../../shared/ids.ts';
import { probeData, resetProbes } from '../fixtures/engine/extensions/probe-log.ts';
import { calls as echoCalls } from '../fixtures/engine/tools/echo.ts';
import { aborted, holdGate } from '../fixtures/engine/tools/slow.ts';
import { within } from '../helpers/wait-for.ts';
import { baseMessages, echoTool, errorOf, failTool, fixtureExtension, fixtureTool, makePlan, slowTool, startEngine, storedToolResults, userEvent, trackEngines } from './helpers/engine-fixture.ts';

const harnesses = trackEngines();
const engineFor = harnesses.start;
beforeEach(() => resetProbes());
const afterTest: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of afterTest.splice(0)) cleanup();
});

/** A mock rule that calls one tool on `trigger` and then summarises. */
const callRule = (trigger: string, name: string, args: Record<string, string | number | boolean> = {}) => ({ match: trigger, toolCalls: [{ name, args }] });

describe('§2.1 Registry / Catalog', () => {
  test('2.1.1 a catalog is built for every step', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], extensions: [fixtureExtension('dyn', 'dynamic-tool.ts')], script: { rules: [callRule('go', 'echo__say', { text: 'a' })] } }));
    await h.engine.runTurn(userEvent('go'));
    expect(probeData.map((d) => d.stepIndex)).toEqual([0, 1]);
  });

  test('2.1.2 the catalog is initialised from Agent.spec.tools: every export as {tool}__{export}', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool(), slowTool()], extensions: [fixtureExtension('dyn', 'dynamic-tool.ts')] }));
    await h.engine.runTurn(userEvent('hi'));
    expect(probeData[0]?.catalog).toEqual(['echo__say', 'echo__inspect', 'echo__json', 'slow__wait', 'slow__pause', 'slow__hold', 'dynamic__enable']);
  });

  test('2.1.3 step middleware edits ctx.toolCatalog and the edited list is what is allowed', async () => {
    const h = await engineFor(
      makePlan({
        tools: [echoTool()],
        extensions: [fixtureExtension('filter', 'catalog-filter.ts', { allow: ['echo__say'] })],
        script: { rules: [callRule('inspect', 'echo__inspect')] },
      }),
    );
    await h.engine.runTurn(userEvent('inspect please'));
    const [result] = storedToolResults(h.paths);
    expect(errorOf(result?.output)?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect(echoCalls.some((c) => c.startsWith('inspect:'))).toBe(false);
  });

  test('2.1.4 tools registered by extensions are in the registry and run; one registered mid-turn is offered in the next step', async () => {
    const h = await engineFor(
      makePlan({
        extensions: [fixtureExtension('dyn', 'dynamic-tool.ts')],
        script: { rules: [{ match: 'enable', toolCalls: [{ name: 'dynamic__enable' }], then: { toolCalls: [{ name: 'dynamic__hello', args: { who: 'world' } }], then: '{{result}}' } }] },
      }),
    );
    const result = await h.engine.runTurn(userEvent('enable it'));
    expect(result.responseText).toBe('hello world');
    expect(probeData.map((d) => d.catalog)).toEqual([['dynamic__enable'], ['dynamic__enable', 'dynamic__hello'], ['dynamic__enable', 'dynamic__hello']]);
  });
});

describe('§2.2 Tool names', () => {
  test('names are {resource}__{export}, also for a single-export tool, split on the first __', async () => {
    const h = await engineFor(makePlan({ tools: [slowTool()], script: { rules: [callRule('wait', 'slow__wait', { ms: 1 })] } }));
    const result = await h.engine.runTurn(userEvent('wait'));
    expect(result.responseText).toBe('slow__wait returned: {"waited":1}');
  });

  test('an extension tool without the __ separator is refused at init (E_EXT_INIT naming the extension)', async () => {
    const error = await startEngine(makePlan({ extensions: [fixtureExtension('badname', 'bad-tool-name.ts')] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error)).toBe(true);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_INIT');
    expect(String(error)).toContain("Extension 'badname'");
    expect(String(error)).toContain("'nosplit'");
  });

  test('an extension tool name with characters outside A-Z a-z 0-9 _ - is refused at init, naming the extension (tool spec §5.2)', async () => {
    const error = await startEngine(makePlan({ extensions: [fixtureExtension('dotted', 'bad-tool-characters.ts')] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_INIT');
    expect(String(error)).toContain("Extension 'dotted'");
    expect(String(error)).toContain("'web__search.v2'");
    expect(String(error)).toContain('A-Z a-z 0-9 _ -');
  });
});

describe('extension tool schemas', () => {
  test('parameters that are not an object schema are refused at init (E_EXT_INIT, cause E_TOOL_INVALID_SCHEMA)', async () => {
    const error = await startEngine(makePlan({ extensions: [fixtureExtension('badschema', 'bad-tool-schema.ts')] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_INIT');
    expect(String(error)).toContain("tool 'bad__schema' with invalid parameters: the top-level type must be 'object'");
  });
});

describe('§2.3 Calls are limited to the step catalog', () => {
  test('2.3.1/2.3.2/2.3.4 a call outside the catalog is refused with a structured ToolResult', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: { rules: [callRule('x', 'unknown__action')] } }));
    const result = await h.engine.runTurn(userEvent('x'));
    expect(result.finishReason).toBe('text_response');
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error).toEqual({
      code: 'E_TOOL_NOT_IN_CATALOG',
      name: 'ToolNotInCatalogError',
      message: "Tool 'unknown__action' is not available in the current Tool Catalog.",
      suggestion: expect.stringContaining('echo__say'),
    });
  });

  test('2.3.3 registry-direct calls work only with the explicit policy', async () => {
    const plan = () =>
      makePlan({
        tools: [echoTool()],
        extensions: [fixtureExtension('filter', 'catalog-filter.ts', { allow: [] })],
        script: { rules: [callRule('say', 'echo__say', { text: 'direct' })] },
      });
    const strict = await engineFor(plan());
    await strict.engine.runTurn(userEvent('say'));
    expect(errorOf(storedToolResults(strict.paths)[0]?.output)?.code).toBe('E_TOOL_NOT_IN_CATALOG');

    const open = await engineFor(plan(), { allowRegistryDirectCalls: true });
    await open.engine.runTurn(userEvent('say'));
    expect(storedToolResults(open.paths)[0]?.output).toEqual({ type: 'text', value: 'direct' });
  });
});

describe('§2.4 Errors are ToolResults, never exceptions', () => {
  test('2.4.1 a throwing handler becomes an E_TOOL result and the turn goes on', async () => {
    const h = await engineFor(makePlan({ tools: [failTool()], script: { rules: [{ match: 'fail', toolCalls: [{ name: 'fail__throw', args: { message: 'disk full' } }], then: 'saw: {{error}}' }] } }));
    const result = await h.engine.runTurn(userEvent('fail'));
    expect(result.finishReason).toBe('text_response');
    expect(result.responseText).toBe('saw: E_TOOL: disk full');
    expect(h.runtimeEvents.some((e) => e.type === 'tool.failed' && e.error.message === 'disk full')).toBe(true);
  });

  test('2.4.2 error messages are cut to Tool.spec.errorMessageLimit', async () => {
    const h = await engineFor(makePlan({ tools: [failTool({ errorMessageLimit: 120 })], script: { rules: [callRule('long', 'fail__long', { length: 5000 })] } }));
    await h.engine.runTurn(userEvent('long'));
    const message = String(errorOf(storedToolResults(h.paths)[0]?.output)?.message);
    expect(message).toHaveLength(120);
    expect(message.endsWith('... (truncated)')).toBe(true);
  });

  test('2.4.3 without a limit the default is 1000 (extension tools too)', async () => {
    const h = await engineFor(makePlan({ tools: [failTool({ errorMessageLimit: 1000 })], script: { rules: [callRule('long', 'fail__long', { length: 5000 })] } }));
    await h.engine.runTurn(userEvent('long'));
    expect(String(errorOf(storedToolResults(h.paths)[0]?.output)?.message)).toHaveLength(1000);
  });

  test('2.4.4/2.4.5 code, suggestion and helpUrl from the handler are kept; a default suggestion is given otherwise', async () => {
    const h = await engineFor(
      makePlan({
        tools: [failTool()],
        script: {
          rules: [
            { match: 'coded', toolCalls: [{ name: 'fail__throw', args: { message: 'nope', code: 'E_QUOTA', suggestion: 'wait an hour' } }] },
            { match: 'plain', toolCalls: [{ name: 'fail__throw', args: { message: 'nope' } }] },
          ],
        },
      }),
    );
    await h.engine.runTurn(userEvent('coded'));
    await h.engine.runTurn(userEvent('plain'));
    const [coded, plain] = storedToolResults(h.paths).map((r) => errorOf(r.output));
    expect(coded).toMatchObject({ code: 'E_QUOTA', message: 'nope', suggestion: 'wait an hour', name: 'Error' });
    expect(plain?.code).toBe('E_TOOL');
    expect(typeof plain?.suggestion).toBe('string');
  });

  test('a handler that returns something that is not JSON gets E_TOOL_OUTPUT_INVALID', async () => {
    const h = await engineFor(makePlan({ tools: [failTool()], script: { rules: [callRule('cycle', 'fail__nonjson')] } }));
    await h.engine.runTurn(userEvent('cycle'));
    expect(errorOf(storedToolResults(h.paths)[0]?.output)?.code).toBe('E_TOOL_OUTPUT_INVALID');
  });

  test('a handler past the timeout gets E_TOOL_TIMEOUT and its ctx.signal aborts', async () => {
    const h = await engineFor(makePlan({ tools: [slowTool()], script: { rules: [callRule('slow', 'slow__wait', { ms: 10000 })] } }), { toolTimeoutMs: 100 });
    await h.engine.runTurn(userEvent('slow'));
    const [stored] = storedToolResults(h.paths);
    expect(errorOf(stored?.output)?.code).toBe('E_TOOL_TIMEOUT');
    expect(aborted).toContain(String(stored?.toolCallId));
  });

  test('the turn does not wait for a handler that ignores the abort', async () => {
    const gate = holdGate('tool-rules-ignores-abort');
    const h = await engineFor(makePlan({ tools: [slowTool()], script: { rules: [callRule('hold', 'slow__hold', { gate: 'tool-rules-ignores-abort' })] } }), { toolTimeoutMs: 100 });
    // The handler is still held (never released before the turn ends), yet the turn completes.
    await within(h.engine.runTurn(userEvent('hold')), 'the turn to end while its tool call is still held');
    const [stored] = storedToolResults(h.paths);
    expect(errorOf(stored?.output)?.code).toBe('E_TOOL_TIMEOUT');
    expect(aborted).toContain(String(stored?.toolCallId));
    gate.release();
  });
});

describe('a draining agent cancels its tool calls (issue 9: no tool process outlives its agent)', () => {
  test('abortToolCalls aborts the running call through ctx.signal and refuses later calls with E_TOOL_ABORTED; the turn still ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-drain-'));
    afterTest.push(() => rmSync(dir, { recursive: true, force: true }));
    const marker = join(dir, 'started');
    const wait = { name: 'slow__wait', args: { ms: 60_000, marker } };
    const h = await engineFor(makePlan({ tools: [slowTool()], script: { rules: [{ match: 'go', toolCalls: [wait], then: { toolCalls: [wait], then: 'done' } }] } }));
    const turn = h.engine.runTurn(userEvent('go'));
    const deadline = Date.now() + 10_000;
    while (!existsSync(marker) && Date.now() < deadline) await Bun.sleep(10);
    expect(existsSync(marker)).toBe(true);
    h.engine.abortToolCalls('the agent is shutting down');
    expect((await turn).responseText).toBe('done');
    const [first, second] = storedToolResults(h.paths);
    expect(aborted).toContain(String(first?.toolCallId));
    expect(errorOf(second?.output)).toMatchObject({ code: 'E_TOOL_ABORTED', message: "Tool 'slow__wait' was not run: the agent is shutting down." });
    // The second call never reached the handler.
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toEqual([String(first?.toolCallId)]);
  });
});

describe('a rehearsal refuses every tool but its own', () => {
  test('abortToolCalls(reason, except) still runs the tools it names and refuses the plan’s; a later abortToolCalls refuses those too', async () => {
    const noop = { owner: 'own', item: { name: 'own__noop', description: 'Does nothing.', parameters: { type: 'object' as const, properties: {} } }, handler: () => ({ ran: true }) };
    const both: JsonObject[] = [{ name: 'own__noop' }, { name: 'echo__say', args: { text: 'x' } }];
    const h = await engineFor(makePlan({ tools: [echoTool()], script: { rules: [{ match: 'go', toolCalls: both, then: 'done' }] } }), { ownTools: [noop] });
    const echoesBefore = echoCalls.length;
    h.engine.abortToolCalls('a rehearsal runs no tool', new Set(['own__noop']));
    expect((await h.engine.runTurn(userEvent('go'))).responseText).toBe('done');
    const [own, echo] = storedToolResults(h.paths);
    expect(own?.toolName).toBe('own__noop');
    expect(own?.output).toMatchObject({ value: { ran: true } });
    expect(errorOf(echo?.output)?.code).toBe('E_TOOL_ABORTED');
    expect(echoCalls.length).toBe(echoesBefore);

    h.engine.abortToolCalls('the agent is shutting down');
    await h.engine.runTurn(userEvent('go'));
    const [, , ownLater] = storedToolResults(h.paths);
    expect(ownLater?.toolName).toBe('own__noop');
    expect(errorOf(ownLater?.output)?.code).toBe('E_TOOL_ABORTED');
  });
});

describe('§2.5 ToolContext', () => {
  test('exactly the spec fields (plus the sandbox of issue 9): workdir is the instance workspace (created), message holds the call, no bundle/oauth', async () => {
    const runtime: AgentToolRuntime = {
      request: async (target) => ({ eventId: 'e', target, correlationId: 'c', response: '' }),
      send: async (target) => ({ eventId: 'e', target, accepted: true }),
      spawn: async (target) => ({ target, instanceKey: 'k', spawned: true }),
      list: async () => ({ agents: [] }),
      catalog: async () => ({ swarmName: 's', entryAgent: 'a', selfAgent: 'a', availableAgents: [], callableAgents: [] }),
    };
    const h = await engineFor(
      makePlan({ tools: [echoTool({ config: { root: '/data' } })], script: { rules: [{ match: 'inspect', toolCalls: [{ name: 'echo__inspect' }], then: '{{result}}' }] } }),
      { agentsRuntime: runtime },
    );
    const result = await h.engine.runTurn(userEvent('inspect'));
    const report = JSON.parse(result.responseText);
    expect(report.contextKeys).toEqual(['agentName', 'config', 'instanceKey', 'logger', 'message', 'pending', 'runtime', 'sandbox', 'signal', 'toolCallId', 'trace', 'turnId', 'workdir']);
    expect(report.workdir).toBe(h.paths.workdir);
    expect(existsSync(h.paths.workdir)).toBe(true);
    expect(report.messageRole).toBe('assistant');
    expect(report.messageHoldsCall).toBe(true);
    const assistant = baseMessages(h.paths).find((m) => m.id === report.messageId);
    expect(assistant?.data.role).toBe('assistant');
    expect(report).toMatchObject({ agentName: 'tester', instanceKey: 'user-1', turnId: result.turnId, config: { root: '/data' }, hasRuntime: true, signalAborted: false });
    expect(report.traceId).toBe(result.traceId);
    expect(report.spanId).toMatch(SPAN_ID_PATTERN);
  });
});

describe('§2.6 Inter-agent calls go through ctx.runtime', () => {
  const runtimeProbe = () =>
    fixtureTool('ask', 'runtime-probe.ts', [
      { name: 'request', description: 'Ask an agent.', parameters: { type: 'object', properties: { target: { type: 'string' }, input: { type: 'string' } }, required: ['target', 'input'] } },
    ]);
  const script = { rules: [{ regex: '^ask (\\w+) (.*)$', toolCalls: [{ name: 'ask__request', args: { target: '{{match.1}}', input: '{{match.2}}' } }], then: '{{match.1}} answered: {{result.response}}' }] };

  test('a request reaches the runtime with the tool span as parent and its reply comes back', async () => {
    const seen: Array<{ target: string; input?: string; traceId?: string; parentSpanId?: string }> = [];
    const runtime: AgentToolRuntime = {
      request: async (target, event) => {
        seen.push({ target, ...event });
        return { eventId: 'evt_1', target, correlationId: 'corr_1', response: `echo of ${event.input}` };
      },
      send: async (target) => ({ eventId: 'e', target, accepted: true }),
      spawn: async (target) => ({ target, instanceKey: 'k', spawned: true }),
      list: async () => ({ agents: [] }),
      catalog: async () => ({ swarmName: 's', entryAgent: 'a', selfAgent: 'a', availableAgents: [], callableAgents: [] }),
    };
    const h = await engineFor(makePlan({ tools: [runtimeProbe()], script }), { agentsRuntime: runtime });
    const result = await h.engine.runTurn(userEvent('ask reviewer check my poem'));
    expect(result.responseText).toBe('reviewer answered: echo of check my poem');
    const toolCalled = h.runtimeEvents.find((e) => e.type === 'tool.called');
    expect(seen).toEqual([{ target: 'reviewer', input: 'check my poem', traceId: result.traceId, parentSpanId: toolCalled?.spanId }]);
  });

  test('2.6.5 a failed call is a structured error result', async () => {
    const runtime: AgentToolRuntime = {
      request: async () => {
        throw Object.assign(new Error("agent 'ghost' is not in this swarm"), { code: 'AGENT_NOT_FOUND' });
      },
      send: async (target) => ({ eventId: 'e', target, accepted: false }),
      spawn: async (target) => ({ target, instanceKey: 'k', spawned: false }),
      list: async () => ({ agents: [] }),
      catalog: async () => ({ swarmName: 's', entryAgent: 'a', selfAgent: 'a', availableAgents: [], callableAgents: [] }),
    };
    const h = await engineFor(makePlan({ tools: [runtimeProbe()], script }), { agentsRuntime: runtime });
    await h.engine.runTurn(userEvent('ask ghost hello'));
    expect(errorOf(storedToolResults(h.paths)[0]?.output)).toMatchObject({ code: 'AGENT_NOT_FOUND', message: "agent 'ghost' is not in this swarm" });
  });
});

describe('§2.7 Tool resource vs entry module (checked at load, naming the file)', () => {
  const cases: Array<[string, string, string[], string]> = [
    ['no handlers export', 'no-handlers.ts', ['run'], 'E_TOOL_HANDLERS_MISSING'],
    ['a declared export without handler', 'echo.ts', ['say', 'missing'], 'E_TOOL_HANDLER_MISSING'],
    ['a handler that is not declared', 'extra-handler.ts', ['run'], 'E_TOOL_HANDLER_UNDECLARED'],
    ['a module that throws while loading', 'import-throws.ts', ['run'], 'E_TOOL_LOAD'],
  ];
  for (const [what, file, exportNames, code] of cases) {
    test(`${what} → ${code}`, async () => {
      const tool = fixtureTool(
        'broken',
        file,
        exportNames.map((name) => ({ name, description: name, parameters: { type: 'object', properties: {} } })),
      );
      const error = await startEngine(makePlan({ tools: [tool] })).catch((e: unknown) => e);
      expect(EngineError.isInstance(error)).toBe(true);
      if (!EngineError.isInstance(error)) return;
      expect<string>(error.code).toBe(code);
      expect(error.details?.file).toBe(tool.entryPath);
      expect(error.toJSON()).toMatchObject({ code, category: 'user', details: { file: tool.entryPath } });
    });
  }
});

describe('Invalid arguments never reach the handler', () => {
  test('schema violations are E_TOOL_INVALID_ARGS listing each problem; the handler is not called', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: { rules: [{ match: 'bad', toolCalls: [{ name: 'echo__json', args: { count: 'three', mode: 'medium' } }] }] } }));
    await h.engine.runTurn(userEvent('bad'));
    const [stored] = storedToolResults(h.paths);
    const error = errorOf(stored?.output);
    expect(error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect(error?.name).toBe('ToolInputValidationError');
    expect(String(error?.message)).toContain('args.count: expected integer, got string');
    expect(String(error?.message)).toContain('args.mode: must be one of "fast", "slow", got "medium"');
    expect(String(error?.suggestion)).toContain('Required keys: count.');
    expect(echoCalls).not.toContain(`json:${stored?.toolCallId}`);
  });

  test('args rewritten by toolCall middleware are what gets validated and what the handler receives', async () => {
    const h = await engineFor(
      makePlan({ tools: [echoTool()], extensions: [fixtureExtension('rewrite', 'args-rewrite.ts')], script: { rules: [{ match: 'say', toolCalls: [{ name: 'echo__say', args: { text: 'hi' } }], then: '{{result}}' }] } }),
    );
    expect((await h.engine.runTurn(userEvent('say'))).responseText).toBe('rewritten:hi');
  });
});
