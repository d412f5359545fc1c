/**
 * A spare the pool primes as it launches it (GOONDAN_AGENT_SPARE=prime-follows) rehearses that
 * plan before it says ready, and only that one: one rehearsal, not the preload's generic one and
 * then the plan (~20 ms of CPU a new instance). Without the prime, or when its rehearsal fails, it
 * still rehearses the generic plan, and says ready either way.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_PRELOAD_ENV, AGENT_SPARE_ENV, agentPreloadOf, SPARE_PRIMED_AT_LAUNCH } from '../../shared/ipc/agent-preload.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type ControlPayloads, controlEvent } from '../../shared/ipc/control-protocol.ts';
import { ECHO_EXPORTS, fixtureTool, makePlan, makeSwarm } from './helpers/engine-fixture.ts';

const AGENT_MAIN = join(import.meta.dir, '../../agent-process/main.ts');
const scratch = mkdtempSync(join(tmpdir(), 'goondan-spare-priming-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const swarm = makeSwarm(['a']);
const preload = JSON.stringify(agentPreloadOf([makePlan({ name: 'a' })], swarm));

interface Seen {
  /** Control events the spare sent, in order, up to its runtime.ready. */
  controls: Array<{ type: string; payload: unknown }>;
  /** Its log lines' messages. */
  logs: string[];
}

/** A spare launched as the pool launches one; `prime` is sent at once, as the pool does. */
async function spareUntilReady(spareEnv: string, prime?: ControlPayloads['runtime.prime']): Promise<Seen> {
  const controls: Seen['controls'] = [];
  const { promise: ready, resolve } = Promise.withResolvers<void>();
  const child = Bun.spawn([process.execPath, AGENT_MAIN], {
    env: { ...process.env, GOONDAN_LOG_LEVEL: 'debug', GOONDAN_SCRATCH_DIR: scratch, [AGENT_PRELOAD_ENV]: preload, [AGENT_SPARE_ENV]: spareEnv },
    serialization: 'json',
    stdio: ['ignore', 'pipe', 'inherit'],
    ipc: (message: { payload?: { type?: string; metadata?: unknown } }) => {
      const type = message.payload?.type ?? '';
      controls.push({ type, payload: message.payload?.metadata });
      if (type === 'runtime.ready') resolve();
    },
  });
  if (prime) child.send({ type: 'event', from: ORCHESTRATOR, to: 'pool', payload: controlEvent('runtime.prime', ORCHESTRATOR_SOURCE, prime) });
  const exited = child.exited.then((code) => {
    throw new Error(`the spare exited (${code}) before runtime.ready`);
  });
  await Promise.race([ready, exited]);
  child.kill();
  const output = await new Response(child.stdout).text();
  const logs = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));
  return { controls, logs };
}

const REHEARSED_GENERIC = 'warm spare rehearsed a turn';
const PRIMED = 'warm spare primed for the agent it will likely become';
const NOT_PRIMED = 'warm spare could not be primed; it stays as warm as it was';

describe('a spare primed as it is launched', () => {
  test('rehearses the plan it was sent, once, and says it is primed before it says ready', async () => {
    const seen = await spareUntilReady(SPARE_PRIMED_AT_LAUNCH, { agentPlan: makePlan({ name: 'a' }), swarmPlan: swarm });
    expect(seen.controls.map((c) => c.type)).toEqual(['runtime.primed', 'runtime.ready']);
    expect(seen.controls[0]?.payload).toEqual({ agent: 'a', ok: true });
    expect(seen.logs.filter((msg) => msg === PRIMED || msg === REHEARSED_GENERIC)).toEqual([PRIMED]);
  });

  test('whose plan cannot be rehearsed rehearses the generic plan instead, and still says ready', async () => {
    // An agent with a tool whose module is not there: its engine cannot be built.
    const broken = makePlan({ name: 'a', tools: [fixtureTool('gone', 'no-such-module.ts', ECHO_EXPORTS)] });
    const seen = await spareUntilReady(SPARE_PRIMED_AT_LAUNCH, { agentPlan: broken, swarmPlan: swarm });
    expect(seen.controls.map((c) => c.type)).toEqual(['runtime.primed', 'runtime.ready']);
    expect(seen.controls[0]?.payload).toEqual({ agent: 'a', ok: false });
    expect(seen.logs.filter((msg) => msg === NOT_PRIMED || msg === REHEARSED_GENERIC)).toEqual([NOT_PRIMED, REHEARSED_GENERIC]);
  });

  test('whose prime never comes waits for it a bounded time, then rehearses the generic plan', async () => {
    const seen = await spareUntilReady(SPARE_PRIMED_AT_LAUNCH);
    expect(seen.controls.map((c) => c.type)).toEqual(['runtime.ready']);
    expect(seen.logs.filter((msg) => msg === PRIMED || msg === REHEARSED_GENERIC)).toEqual([REHEARSED_GENERIC]);
  });
});

describe('a spare launched without a prime', () => {
  test('rehearses the generic plan, then says ready', async () => {
    const seen = await spareUntilReady('1');
    expect(seen.controls.map((c) => c.type)).toEqual(['runtime.ready']);
    expect(seen.logs.filter((msg) => msg === PRIMED || msg === REHEARSED_GENERIC)).toEqual([REHEARSED_GENERIC]);
  });
});
