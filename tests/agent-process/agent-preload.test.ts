/**
 * A bare agent process loads the modules its swarm uses before it says runtime.ready, so a warm
 * spare serves its first message without loading them; the orchestrator lists only built-in
 * modules and real model providers. Bad preload input never keeps a process from becoming ready.
 */
import { afterAll, describe, expect, spyOn, test } from 'bun:test';
import * as fs from 'node:fs';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_PRELOAD_ENV, agentPreloadOf, rehearsalSwarm } from '../../shared/ipc/agent-preload.ts';
import { ORCHESTRATOR } from '../../shared/ipc/control-events.ts';
import { TurnQueue } from '../../agent-process/shell/turn-queue.ts';
import { calls as echoCalls } from '../fixtures/engine/tools/echo.ts';
import { BASE_PACKAGE } from '../../shared/types/resources.ts';
import { rehearseAgent } from '../../agent-process/shell/agent-rehearsal.ts';
import { REHEARSAL_TOOL_NAME, withRehearsalCall } from '../../agent-process/shell/rehearsal-tool.ts';
import { ToolExecutor } from '../../agent-process/tools/tool-executor.ts';
import type { AgentPlan } from '../../shared/types/bundle.ts';
import { echoTool, makePlan, makeSwarm } from './helpers/engine-fixture.ts';

const AGENT_MAIN = join(import.meta.dir, '../../agent-process/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'goondan-preload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a bare agent process; resolves with what `check` saw when runtime.ready arrived. */
async function atReady<T>(preload: string | undefined, check: () => T): Promise<T> {
  const env: Record<string, string | undefined> = { ...process.env, GOONDAN_LOG_LEVEL: 'warn' };
  if (preload !== undefined) env[AGENT_PRELOAD_ENV] = preload;
  return new Promise<T>((resolve, reject) => {
    const child = Bun.spawn([process.execPath, AGENT_MAIN], {
      env,
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit'],
      ipc: (message: { payload?: { type?: string } }) => {
        if (message.payload?.type !== 'runtime.ready') return;
        const seen = check();
        child.kill();
        resolve(seen);
      },
    });
    void child.exited.then((code) => reject(new Error(`the agent process exited (${code}) before runtime.ready`)));
  });
}

describe('preloading in a bare agent process', () => {
  test('the listed modules have been imported by the time the process says runtime.ready', async () => {
    const marker = join(dir, 'imported');
    const module = join(dir, 'marks.ts');
    // A slow module: without the preload the process would be ready long before it is imported.
    writeFileSync(module, `await Bun.sleep(300);\nrequire('node:fs').writeFileSync(${JSON.stringify(marker)}, 'yes');\n`);
    const imported = await atReady(JSON.stringify({ modules: [module], providers: ['no-such-provider'] }), () => existsSync(marker));
    expect(imported).toBe(true);
  });

  test('malformed preload input (not JSON, wrong shape, a missing module) still ends in runtime.ready', async () => {
    for (const preload of ['{not json', JSON.stringify({ modules: 'x' }), JSON.stringify({ modules: [join(dir, 'missing.ts')], providers: [] })]) {
      expect(await atReady(preload, () => 'ready')).toBe('ready');
    }
  });
});

describe('what the orchestrator lists', () => {
  test('built-in tool and extension modules of every agent, once each, and providers other than mock', () => {
    const base = { ...echoTool(), packageName: BASE_PACKAGE };
    const a = makePlan({ name: 'a', model: { provider: 'openai' } });
    a.tools = [
      { ...base, name: 'agents', entryPath: '/base/tools/agents/index.ts' },
      { ...base, name: 'mine', packageName: '', entryPath: '/bundle/tools/mine/index.ts' },
      // HTTP exports only: no entry module.
      { ...base, name: 'web', entryPath: undefined },
    ];
    a.extensions = [{ name: 'context-message', packageName: BASE_PACKAGE, entryPath: '/base/extensions/context-message/index.ts', config: {} }];
    const b = makePlan({ name: 'b' });
    b.tools = [{ ...base, name: 'agents', entryPath: '/base/tools/agents/index.ts' }];
    expect(agentPreloadOf([a, b])).toEqual({ modules: ['/base/extensions/context-message/index.ts', '/base/tools/agents/index.ts'], providers: ['openai'] });
  });
});

describe('the rehearsal a warm spare runs', () => {
  const base = { ...echoTool(), packageName: BASE_PACKAGE };
  const secretive = (): AgentPlan => {
    const plan = makePlan({ name: 'a', systemPrompt: 'internal instructions', model: { provider: 'openai', apiKey: 'sk-secret', endpoint: 'https://models.example', options: { temperature: 1 } } });
    plan.tools = [
      { ...base, name: 'agents', entryPath: '/base/tools/agents/index.ts' },
      { ...base, name: 'mine', packageName: '', entryPath: '/bundle/tools/mine/index.ts' },
      { ...base, name: 'web', entryPath: undefined, exports: [{ ...base.exports[0]!, http: { method: 'GET', url: 'https://api.example', headers: { authorization: 'Bearer secret' } } }] },
    ];
    plan.extensions = [{ name: 'mcp', packageName: BASE_PACKAGE, entryPath: '/base/extensions/mcp/index.ts', config: {} }];
    return plan;
  };

  test('is one of the swarm agents with built-in coded tools only, no extension, and the mock model without key, endpoint or prompt', () => {
    const { rehearsal } = agentPreloadOf([secretive()], makeSwarm(['a']));
    expect(rehearsal?.agentPlan.tools.map((t) => t.name)).toEqual(['agents']);
    expect(rehearsal?.agentPlan.extensions).toEqual([]);
    expect(rehearsal?.agentPlan.model).toEqual({ name: 'mock', provider: 'mock', model: 'scripted', options: {}, capabilities: {} });
    // The environment is inherited by tool processes: no secret may travel in it.
    const text = JSON.stringify(rehearsal);
    for (const secret of ['sk-secret', 'Bearer secret', 'internal instructions', 'models.example']) expect(text).not.toContain(secret);
    expect(rehearsal?.swarmPlan.durability.fsync).toBe('never');
  });

  test('is left out when the swarm is unknown or the plan would not fit in an environment variable', () => {
    expect(agentPreloadOf([secretive()]).rehearsal).toBeUndefined();
    const huge = secretive();
    huge.tools = [{ ...base, name: 'agents', entryPath: '/base/tools/agents/index.ts', exports: [{ ...base.exports[0]!, description: 'x'.repeat(70_000) }] }];
    const preload = agentPreloadOf([huge], makeSwarm(['a']));
    expect(preload.rehearsal).toBeUndefined();
    expect(preload.modules).toEqual(['/base/extensions/mcp/index.ts', '/base/tools/agents/index.ts']);
  });

  test('answers its event through the start and the turn queue an assigned instance gets', async () => {
    const push = spyOn(TurnQueue.prototype, 'push');
    try {
      const rehearsal = agentPreloadOf([makePlan({ name: 'a' })], makeSwarm(['a'])).rehearsal;
      if (!rehearsal) throw new Error('expected a rehearsal');
      expect(await rehearseAgent(rehearsal)).toBe(true);
      expect(push).toHaveBeenCalledTimes(1);
      expect(push.mock.calls[0]?.[0].replyTo?.target).toBe(ORCHESTRATOR);
    } finally {
      push.mockRestore();
    }
  });

  test('runs no tool handler, whatever the model asks, and still answers', async () => {
    const before = echoCalls.length;
    const plan = makePlan({ name: 'a', tools: [echoTool()], script: { rules: [{ match: 'rehearsal', toolCalls: [{ name: 'echo__say', args: { text: 'x' } }], then: 'done' }] } });
    expect(await rehearseAgent({ agentPlan: plan, swarmPlan: rehearsalSwarm(makeSwarm(['a'])) })).toBe(true);
    expect(echoCalls.length).toBe(before);
  });

  test('goes through the whole tool-call path once, with its own no-op tool, and runs no tool of the plan', async () => {
    const execute = spyOn(ToolExecutor.prototype, 'execute');
    const before = echoCalls.length;
    try {
      // The plan's script does not answer the rehearsal's input: the rehearsal's own rule does.
      const plan = makePlan({ name: 'a', tools: [echoTool()], script: { rules: [{ match: 'something else', toolCalls: [{ name: 'echo__say', args: { text: 'x' } }], then: 'done' }] } });
      expect(await rehearseAgent({ agentPlan: plan, swarmPlan: rehearsalSwarm(makeSwarm(['a'])) })).toBe(true);
      expect(execute.mock.calls.map(([ctx]) => ctx.toolName)).toEqual([REHEARSAL_TOOL_NAME]);
      // Ran (not refused): its handler's answer came back, past the argument check, the gate and the journal.
      expect(await execute.mock.results[0]?.value).toMatchObject({ status: 'ok', output: { rehearsed: true } });
      expect(echoCalls.length).toBe(before);
    } finally {
      execute.mockRestore();
    }
  });

  test('keeps the script’s rule for its input, whose tool calls are refused, and drops only the script’s latency', async () => {
    const model = makePlan({ script: { latencyMs: 900, chunkDelayMs: 5, rules: [{ match: 'rehearsal', reply: 'mine' }] } }).model;
    const rehearsed = withRehearsalCall(model, 'rehearsal');
    expect(rehearsed.options).toEqual({
      latencyMs: 0,
      chunkDelayMs: 5,
      rules: [{ match: 'rehearsal', reply: 'mine' }, { match: 'rehearsal', toolCalls: [{ name: REHEARSAL_TOOL_NAME, args: {} }], then: 'rehearsed' }],
    });
    expect(model.options).toEqual({ latencyMs: 900, chunkDelayMs: 5, rules: [{ match: 'rehearsal', reply: 'mine' }] });
  });

  test('is given up when its turn does not answer in time, instead of keeping the spare from being ready', async () => {
    // Streamed slowly (a rehearsal drops the script's latency, not the pauses between its chunks).
    const slow = makePlan({ name: 'a', script: { chunkDelayMs: 1_500, rules: [{ match: 'rehearsal', reply: 'a slow reply' }] } });
    const started = performance.now();
    expect(await rehearseAgent({ agentPlan: slow, swarmPlan: rehearsalSwarm(makeSwarm(['a'])) }, 100)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  test('makes the process’s first fs.fsync, which the first real turn’s sync would otherwise pay for', async () => {
    // The rehearsal's own turn runs under `fsync: never`: without this, nothing in it calls fsync.
    const fsync = spyOn(fs, 'fsync');
    try {
      const rehearsal = agentPreloadOf([makePlan({ name: 'a' })], makeSwarm(['a'])).rehearsal;
      if (!rehearsal) throw new Error('expected a rehearsal');
      expect(await rehearseAgent(rehearsal)).toBe(true);
      expect(fsync).toHaveBeenCalledTimes(1);
      expect(typeof fsync.mock.calls[0]?.[0]).toBe('number');
    } finally {
      fsync.mockRestore();
    }
  });

  test('builds an engine and runs a turn in a scratch directory it removes, also when the plan is refused', async () => {
    const scratchParent = mkdtempSync(join(dir, 'tmp-'));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = scratchParent;
    try {
      const good = agentPreloadOf([makePlan({ name: 'a' })], makeSwarm(['a'])).rehearsal;
      if (!good) throw new Error('expected a rehearsal');
      expect(await rehearseAgent(good)).toBe(true);
      // A plan the runtime.assign schema refuses is not built.
      expect(await rehearseAgent({ ...good, agentPlan: { ...good.agentPlan, name: '' } })).toBe(false);
      expect(readdirSync(scratchParent)).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  });
});
