/**
 * The export declarations of issue 17 through the real engine: schema defaults filled in (seed 002),
 * result schemas (`returns`), `maxCallsPerTurn`, display metadata on `tool.called`, and the tool's
 * own permission verdict (`evaluatePolicy`, seed 004 §6) — alone and together with tool-policy.
 */
import { beforeEach, describe, expect, test } from 'bun:test';
import type { ApprovalDecision, ApprovalRequest } from '../../shared/types/extensions.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolExportPlan } from '../../shared/types/bundle.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { baseExtension } from '../base-extensions/helpers/extension-plans.ts';
import { calls, judged } from '../fixtures/engine/tools/declared.ts';
import { baseMessages, errorOf, fixtureTool, makePlan, storedToolResults, trackEngines, userEvent } from './helpers/engine-fixture.ts';

const engines = trackEngines();
const STRICT = { GOONDAN_STRICT_RESULTS: '1' };

const EXPORTS: ToolExportPlan[] = [
  {
    name: 'received',
    description: 'Echo the arguments the handler receives.',
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        mode: { enum: ['fast', 'slow'], default: 'fast' },
        retries: { type: 'integer', default: 3 },
        options: { type: 'object', properties: { verbose: { type: 'boolean', default: false } }, default: {} },
      },
      required: ['text'],
    },
  },
  {
    name: 'result',
    description: 'Return a result of the requested shape.',
    parameters: { type: 'object', properties: { shape: { type: 'string' } } },
    returns: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  },
  { name: 'counted', description: 'Count calls.', parameters: { type: 'object', properties: {} }, maxCallsPerTurn: 2 },
  {
    name: 'guarded',
    description: 'Judged by its own evaluatePolicy.',
    parameters: { type: 'object', properties: { mode: { type: 'string' }, target: { type: 'string', default: 'prod' } }, required: ['mode'] },
    displayName: 'Guarded action',
    icon: '🛡️',
    summary: 'Do {{args.mode}} on {{args.target}} for {{config.team}}',
  },
];
const declared = (config: JsonObject = { team: 'ops' }) => fixtureTool('declared', 'declared.ts', EXPORTS, { config });
const rule = (match: string, toolCalls: JsonObject[], then: JsonObject | string = '{{result}}'): JsonObject => ({ match, toolCalls, then });
const plan = (rules: JsonObject[], extensions = [] as ReturnType<typeof baseExtension>[]) => makePlan({ tools: [declared()], extensions, script: { rules } });

/** An approver that records each request and answers with `decision`. */
function approver(decision: Partial<ApprovalDecision> = {}) {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    approvals: {
      request: async (request: ApprovalRequest): Promise<ApprovalDecision> => {
        requests.push(request);
        return { approved: true, scope: 'once', decidedBy: 'test', ...decision };
      },
    },
  };
}

beforeEach(() => {
  calls.length = 0;
  judged.length = 0;
});

describe('defaults (seed 002): JSON Schema defaults are filled in before the handler runs', () => {
  test('the handler receives the defaults; the model’s own arguments are stored unchanged', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__received', args: { text: 'hi' } }])]));
    const result = await h.engine.runTurn(userEvent('go'));
    expect(JSON.parse(result.responseText)).toEqual({ text: 'hi', mode: 'fast', retries: 3, options: { verbose: false } });
    const assistant = baseMessages(h.paths).find((m) => m.data.role === 'assistant');
    expect(JSON.stringify(assistant?.data)).toContain('"input":{"text":"hi"}');
  });

  test('a given value is kept, and a wrong one is still E_TOOL_INVALID_ARGS', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__received', args: { text: 'hi', mode: 'slow' } }, { name: 'declared__received', args: { text: 'x', retries: 'many' } }])]));
    await h.engine.runTurn(userEvent('go'));
    const [kept, wrong] = storedToolResults(h.paths);
    expect(kept?.output).toEqual({ type: 'json', value: { text: 'hi', mode: 'slow', retries: 3, options: { verbose: false } } });
    expect(errorOf(wrong?.output)).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
  });
});

describe('result schemas (exports[].returns)', () => {
  test('with GOONDAN_STRICT_RESULTS=1 a result that does not match is E_TOOL_RESULT_INVALID naming the problem', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__result', args: { shape: 'wrong' } }, { name: 'declared__result', args: { shape: 'right' } }])]), { env: STRICT });
    await h.engine.runTurn(userEvent('go'));
    const [wrong, right] = storedToolResults(h.paths);
    expect(errorOf(wrong?.output)).toMatchObject({ code: 'E_TOOL_RESULT_INVALID' });
    expect(String(errorOf(wrong?.output)?.message)).toContain('result.count: expected integer, got string');
    expect(right?.output).toEqual({ type: 'json', value: { count: 2 } });
  });

  test('without it the result passes and a warning is logged', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__result', args: { shape: 'wrong' } }])]), { env: {} });
    await h.engine.runTurn(userEvent('go'));
    expect(storedToolResults(h.paths)[0]?.output).toEqual({ type: 'json', value: { count: 'many' } });
    expect(h.logLines().find((line) => line.code === 'E_TOOL_RESULT_INVALID')).toMatchObject({ level: 40, toolName: 'declared__result', issues: ['result.count: expected integer, got string'] });
  });
});

describe('per-tool limits (exports[].maxCallsPerTurn)', () => {
  test('calls beyond the limit, counted in the model’s order across steps, are E_TOOL_CALL_LIMIT and never run; the next turn starts over', async () => {
    const count = { name: 'declared__counted' };
    const h = await engines.start(plan([rule('go', [count, count, count], { toolCalls: [count], then: 'done' })]));
    await h.engine.runTurn(userEvent('go'));
    const results = storedToolResults(h.paths);
    expect(results.map((r) => errorOf(r.output)?.code ?? 'ok')).toEqual(['ok', 'ok', 'E_TOOL_CALL_LIMIT', 'E_TOOL_CALL_LIMIT']);
    expect(String(errorOf(results[2]?.output)?.message)).toContain('at most 2 time(s) per turn; this was call 3');
    expect(calls).toEqual(['counted:call_1', 'counted:call_2']);
    await h.engine.runTurn(userEvent('go'));
    expect(calls).toHaveLength(4);
  });
});

describe('display metadata (exports[].displayName, icon, summary)', () => {
  test('tool.called carries the summary rendered over the arguments (defaults filled in) and the tool config', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__guarded', args: { mode: 'fine\n  and\tcalm', target: 'staging' } }])]));
    await h.engine.runTurn(userEvent('go'));
    const called = h.runtimeEvents.find((e): e is Extract<RuntimeEvent, { type: 'tool.called' }> => e.type === 'tool.called');
    expect(called).toMatchObject({ summary: 'Do fine and calm on staging for ops', displayName: 'Guarded action', icon: '🛡️' });
  });

  test('a summary longer than one line of 200 characters is cut in the middle, so its end is seen', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__guarded', args: { mode: `${'x'.repeat(500)} | sh` } }])]));
    await h.engine.runTurn(userEvent('go'));
    const called = h.runtimeEvents.find((e): e is Extract<RuntimeEvent, { type: 'tool.called' }> => e.type === 'tool.called');
    expect(called?.summary?.length).toBeLessThanOrEqual(200);
    expect(called?.summary).toMatch(/^Do x+ … \[\d+ characters cut\] … x* \| sh on prod for ops$/);
  });

  test('control characters in the arguments are shown as escapes in the summary', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__guarded', args: { mode: 'a\u001b[2K\u009b1Ab' } }])]));
    await h.engine.runTurn(userEvent('go'));
    const called = h.runtimeEvents.find((e): e is Extract<RuntimeEvent, { type: 'tool.called' }> => e.type === 'tool.called');
    expect(called?.summary).toBe('Do a\\x1b[2K\\x9b1Ab on prod for ops');
  });
});

describe("the tool's own permission verdict (evaluatePolicy), with no policy declared", () => {
  const guarded = (mode: string) => plan([rule('go', [{ name: 'declared__guarded', args: { mode } }])]);

  test('it is called for every call with the arguments (defaults filled in) and where the call runs', async () => {
    const h = await engines.start(plan([rule('go', [{ name: 'declared__received', args: { text: 'a' } }, { name: 'declared__guarded', args: { mode: 'fine' } }])]));
    await h.engine.runTurn(userEvent('go'));
    expect(judged.map((j) => j.ctx.toolName)).toEqual(['declared__received', 'declared__guarded']);
    expect(judged[1]).toMatchObject({ args: { mode: 'fine', target: 'prod' }, ctx: { exportName: 'guarded', agentName: 'tester', instanceKey: 'user-1', workdir: h.paths.workdir, config: { team: 'ops' } } });
  });

  test('deny: E_TOOL_DENIED with the tool’s reason; the handler never runs', async () => {
    const h = await engines.start(guarded('deny'));
    await h.engine.runTurn(userEvent('go'));
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error).toMatchObject({ code: 'E_TOOL_DENIED' });
    expect(String(error?.message)).toContain('denied by the tool itself: mode deny is never allowed');
    expect(calls).toEqual([]);
  });

  test('ask: the person is asked with the reason, summary, display name, icon and the tool’s preview; approved, it runs', async () => {
    const person = approver();
    const h = await engines.start(guarded('ask'), { approvals: person.approvals });
    const result = await h.engine.runTurn(userEvent('go'));
    expect(result.responseText).toBe('ran ask');
    expect(person.requests).toHaveLength(1);
    expect(person.requests[0]).toMatchObject({
      toolName: 'declared__guarded',
      reason: "the tool's own check: mode ask needs a person",
      summary: 'Do ask on prod for ops',
      displayName: 'Guarded action',
      icon: '🛡️',
      preview: 'would run in ask mode\nsecond line',
    });
  });

  test('ask: declined, or with nobody to ask, it is E_TOOL_DENIED saying so', async () => {
    const person = approver({ approved: false, decidedBy: 'http', reason: 'not now' });
    const declined = await engines.start(guarded('ask'), { approvals: person.approvals });
    await declined.engine.runTurn(userEvent('go'));
    expect(String(errorOf(storedToolResults(declined.paths)[0]?.output)?.message)).toContain('was not approved (http); the tool asked for approval: mode ask needs a person. not now');
    const nobody = await engines.start(guarded('ask'));
    await nobody.engine.runTurn(userEvent('go'));
    expect(String(errorOf(storedToolResults(nobody.paths)[0]?.output)?.message)).toContain('needs approval (mode ask needs a person), but this agent has no approver; treated as deny');
    expect(calls).toEqual([]);
  });

  test('a check that throws cannot vouch for the call: it asks', async () => {
    const person = approver({ approved: false, decidedBy: 'http' });
    const h = await engines.start(guarded('throw'), { approvals: person.approvals });
    await h.engine.runTurn(userEvent('go'));
    expect(person.requests[0]?.reason).toContain("the tool's own permission check failed (the check broke)");
    expect(calls).toEqual([]);
  });
});

describe('the stricter of the tool’s answer and the policy’s verdict wins (tool-policy attached)', () => {
  const withPolicy = (mode: string, policy: JsonObject) => plan([rule('go', [{ name: 'declared__guarded', args: { mode } }])], [baseExtension('tool-policy', policy)]);

  test('policy allow + tool ask: asked exactly once, with the tool’s preview; then it runs', async () => {
    const person = approver();
    const h = await engines.start(withPolicy('ask', { default: 'allow' }), { approvals: person.approvals });
    expect((await h.engine.runTurn(userEvent('go'))).responseText).toBe('ran ask');
    expect(person.requests).toHaveLength(1);
    expect(person.requests[0]).toMatchObject({ reason: "the tool's own check: mode ask needs a person", preview: 'would run in ask mode\nsecond line', summary: 'Do ask on prod for ops' });
  });

  test('policy ask + tool with only a preview: the policy asks, and the person sees the preview', async () => {
    const person = approver();
    const h = await engines.start(withPolicy('preview', { default: 'ask' }), { approvals: person.approvals });
    expect((await h.engine.runTurn(userEvent('go'))).responseText).toBe('ran preview');
    expect(person.requests).toHaveLength(1);
    expect(person.requests[0]).toMatchObject({ reason: 'the policy default (ask)', preview: 'just a preview' });
  });

  test('policy allow + tool deny: denied (a tool makes a call stricter)', async () => {
    const person = approver();
    const h = await engines.start(withPolicy('deny', { default: 'allow' }), { approvals: person.approvals });
    await h.engine.runTurn(userEvent('go'));
    expect(String(errorOf(storedToolResults(h.paths)[0]?.output)?.message)).toContain("the tool's own check: mode deny is never allowed");
    expect(person.requests).toEqual([]);
    expect(calls).toEqual([]);
  });

  test('policy deny + tool with no objection: denied (never looser)', async () => {
    const person = approver();
    const h = await engines.start(withPolicy('fine', { default: 'allow', rules: [{ tool: 'declared__guarded', action: 'deny', reason: 'frozen' }] }), { approvals: person.approvals });
    await h.engine.runTurn(userEvent('go'));
    expect(String(errorOf(storedToolResults(h.paths)[0]?.output)?.message)).toContain('frozen');
    expect(calls).toEqual([]);
  });
});
