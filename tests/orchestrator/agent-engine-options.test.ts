/** Agents start with Bun engine options (JIT threshold, no block warm-up) only when this Bun accepts them; a user's own value wins. */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentLaunchOptions, agentSpawnSpec } from '../../orchestrator/daemon/spawn-specs.ts';
import { loadSwarmConfig } from '../../orchestrator/daemon/swarm-config.ts';
import { AGENT_ENGINE_ENV, agentEngineEnv, bunAccepts, prepareAgentEngineOptions } from '../../orchestrator/process/agent-engine-options.ts';

const BUNDLE = join(import.meta.dir, '../fixtures/e2e/swarm');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  // Other test files in this process launch agents as an unprepared daemon would.
  prepareAgentEngineOptions({ GOONDAN_AGENT_ENGINE: 'default' }, recordingLog());
});

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-engine-options-'));
  dirs.push(dir);
  return dir;
}

function recordingLog(): { warn(obj: object, msg: string): void; lines: string[] } {
  const lines: string[] = [];
  return { warn: (_obj, msg) => lines.push(msg), lines };
}

describe('the agents’ engine options', () => {
  test('this Bun accepts them and refuses an option it does not know (it would not start an agent with one)', () => {
    expect(bunAccepts(AGENT_ENGINE_ENV)).toBe(true);
    expect(bunAccepts({ BUN_JSC_noSuchOptionInAnyBun: '1' })).toBe(false);
  });

  test('are checked once per Bun version: the result is remembered in the cache', () => {
    const dir = cacheDir();
    let checks = 0;
    const check = { cacheDir: dir, accepts: () => (checks++, true) };
    prepareAgentEngineOptions({}, recordingLog(), check);
    prepareAgentEngineOptions({}, recordingLog(), check);
    expect(checks).toBe(1);
    expect(readdirSync(dir).some((name) => name.startsWith(`jsc-options-${Bun.version}-`))).toBe(true);
    expect(agentEngineEnv()).toEqual(AGENT_ENGINE_ENV);
  });

  test('a Bun that refuses them: agents start with its defaults, and the daemon says why', () => {
    const dir = cacheDir();
    const log = recordingLog();
    prepareAgentEngineOptions({}, log, { cacheDir: dir, accepts: () => false });
    expect(agentEngineEnv()).toEqual({});
    expect(log.lines).toEqual(['this Bun does not accept the agents’ engine options; agents run with its defaults']);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('GOONDAN_AGENT_ENGINE=default keeps Bun’s own settings without checking anything', () => {
    const dir = cacheDir();
    prepareAgentEngineOptions({ GOONDAN_AGENT_ENGINE: 'default' }, recordingLog(), { cacheDir: dir, accepts: () => { throw new Error('not checked'); } });
    expect(agentEngineEnv()).toEqual({});
    expect(existsSync(join(dir, 'anything'))).toBe(false);
  });

  test('reach the agent’s command environment; a value the user set for the daemon wins', async () => {
    prepareAgentEngineOptions({}, recordingLog(), { cacheDir: cacheDir(), accepts: () => true });
    const plain = await loadSwarmConfig({ bundlePath: BUNDLE, processEnv: { PATH: process.env.PATH ?? '' } });
    expect(agentLaunchOptions(plain, 'inherit').env).toMatchObject(AGENT_ENGINE_ENV);
    const own = await loadSwarmConfig({ bundlePath: BUNDLE, processEnv: { PATH: process.env.PATH ?? '', BUN_JSC_thresholdForJITSoon: '700' } });
    expect(agentLaunchOptions(own, 'inherit').env).toMatchObject({ ...AGENT_ENGINE_ENV, BUN_JSC_thresholdForJITSoon: '700' });
  });

  test('a new instance re-uses its configuration’s launch environment until the engine options change', async () => {
    prepareAgentEngineOptions({}, recordingLog(), { cacheDir: cacheDir(), accepts: () => true });
    const config = await loadSwarmConfig({ bundlePath: BUNDLE, processEnv: { PATH: process.env.PATH ?? '' } });
    const context = { bundlePath: BUNDLE, stateRoot: cacheDir() };
    const [first, second] = ['k1', 'k2'].map((key) => agentSpawnSpec(config, context, 'alpha', key));
    expect(second?.launch.env).toBe(first?.launch.env);
    expect(second?.assignment).toMatchObject({ instanceKey: 'k2' });
    prepareAgentEngineOptions({ GOONDAN_AGENT_ENGINE: 'default' }, recordingLog(), { cacheDir: cacheDir(), accepts: () => true });
    const after = agentSpawnSpec(config, context, 'alpha', 'k3');
    expect(after.launch.env).not.toBe(first?.launch.env);
    expect(Object.keys(after.launch.env ?? {}).filter((name) => name.startsWith('BUN_JSC_'))).toEqual([]);
  });
});
