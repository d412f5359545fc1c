/**
 * The warm pool adapts to the recent rate of new instances (issue 12): it keeps its minimum while
 * new instances are rare, grows to cover the arrivals of two spare boot times when they come back
 * to back, never beyond what memory allows (the live-process budget left) nor MAX_SPARES, and
 * stops the extra spares once the demand has passed. A daemon becomes ready once a spare is ready.
 * Over the in-memory launcher with a fake clock: nothing is spawned, no timing is asserted.
 */
import { describe, expect, test } from 'bun:test';
import pino from 'pino';
import { defaultWarmPoolSize } from '../../orchestrator/daemon/orchestrator.ts';
import { DEMAND_WINDOW_MS, MAX_SPARES, WarmPool, type WarmPoolOptions } from '../../orchestrator/process/warm-pool.ts';
import { AGENT_SPARE_ENV, SPARE_PRIMED_AT_LAUNCH } from '../../shared/ipc/agent-preload.ts';
import { testAgentPlan } from './helpers/core-fixture.ts';
import { testSwarmPlan } from '../helpers/test-plans.ts';
import type { FakeChild } from './helpers/fake-child.ts';
import { eventually } from './helpers/eventually.ts';
import { MemoryLauncher } from './helpers/memory-launcher.ts';

interface PoolFixture {
  pool: WarmPool;
  launcher: MemoryLauncher;
  clock: { t: number };
}

function poolFixture(options: Partial<Pick<WarmPoolOptions, 'size' | 'room' | 'primingPlan' | 'likelyAgent' | 'maxBooting'>> = {}): PoolFixture {
  const clock = { t: 1_000 };
  const launcher = new MemoryLauncher({ autoReady: false });
  const pool = new WarmPool({
    size: 1,
    // The size tests count spares as if boots were free; the boot limit has its own tests.
    maxBooting: Number.POSITIVE_INFINITY,
    ...options,
    logger: pino({ level: 'silent' }),
    launcher,
    launchOptions: () => ({ command: ['fake-agent'], env: {}, stdin: 'ignore', output: 'inherit' }),
    now: () => clock.t,
  });
  return { pool, launcher, clock };
}

/** Makes every launched, unassigned child say runtime.ready and waits until the pool has them all. */
async function bootAll(f: PoolFixture, bootMs: number): Promise<void> {
  f.clock.t += bootMs;
  const booting = f.launcher.children.filter((c) => c.alive && c.sent.length === 0);
  for (const child of booting) child.ready();
  await eventually(() => booting.every((c) => !c.alive || f.pool.pids().includes(c.pid)), 'the booted spares in the pool', () => f.launcher.describe());
}

/** `count` new instances, `gapMs` apart: each takes a spare (or misses and would start cold). */
function newInstances(f: PoolFixture, count: number, gapMs: number): void {
  for (let i = 0; i < count; i++) {
    f.clock.t += gapMs;
    f.pool.take();
  }
}

describe('warm pool refill', () => {
  test('a take that leaves no ready spare starts the next one at once, not after the refill delay', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    expect(f.pool.take()?.ready).toBe(true);
    // Timers of the same delay fire in the order they were set: this one runs after the pool's
    // refill (due EMPTY_POOL_REFILL_DELAY_MS after the take), long before REFILL_DELAY_MS.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(f.launcher.children).toHaveLength(2);
    f.pool.stop();
  });
});

describe('warm spares are primed for the agent new instances are likely for', () => {
  const swarm = testSwarmPlan('pool-test', ['a', 'b']);
  const primingFixture = (): PoolFixture =>
    poolFixture({ size: 2, primingPlan: (agent) => ({ agentPlan: testAgentPlan(agent, '/tmp'), swarmPlan: swarm }), likelyAgent: () => swarm.entryAgent });
  const primesSent = (child: FakeChild) => child.events().filter((e) => e.type === 'runtime.prime').map((e) => (e.metadata?.agentPlan as { name?: string } | undefined)?.name);
  /** Two ready spares, each sent runtime.prime (for the entry agent). */
  const twoPrimedSpares = async (): Promise<{ f: PoolFixture; first: FakeChild; second: FakeChild }> => {
    const f = primingFixture();
    f.pool.fill();
    await bootAll(f, 100);
    const [first, second] = f.launcher.children;
    if (!first || !second) throw new Error('two spares expected');
    await eventually(() => primesSent(first).length === 1 && primesSent(second).length === 1, 'runtime.prime at both spares', () => f.launcher.describe());
    return { f, first, second };
  };

  test('a spare is sent its prime as it is launched, before it is ready, and told in its environment to wait for it', async () => {
    const f = primingFixture();
    f.pool.fill();
    await eventually(() => f.launcher.children.length === 2, 'two spares launched', () => f.launcher.describe());
    // Nothing booted yet: no spare said runtime.ready, and each already holds its prime.
    expect(f.launcher.children.map((child) => primesSent(child))).toEqual([['a'], ['a']]);
    expect(f.launcher.launches.map((launch) => launch.env?.[AGENT_SPARE_ENV])).toEqual([SPARE_PRIMED_AT_LAUNCH, SPARE_PRIMED_AT_LAUNCH]);
    await bootAll(f, 100);
    // Ready does not bring a second prime: the spare rehearsed the first one before it said ready.
    expect(f.launcher.children.map((child) => primesSent(child))).toEqual([['a'], ['a']]);
    f.pool.stop();
  });

  test('without a plan to prime with, a spare is launched to rehearse the generic plan and sent no prime', async () => {
    const f = poolFixture({ size: 1 });
    f.pool.fill();
    await bootAll(f, 100);
    const [spare] = f.launcher.children;
    expect(f.launcher.launches.map((launch) => launch.env?.[AGENT_SPARE_ENV])).toEqual(['1']);
    expect(spare ? primesSent(spare) : undefined).toEqual([]);
    f.pool.stop();
  });

  test('a spare is asked to rehearse the entry agent; a take for it prefers the primed spare', async () => {
    const { f, first, second } = await twoPrimedSpares();
    expect(primesSent(first)).toEqual(['a']);
    // Only the second (newer) spare says it is primed: the take for 'a' skips the older one.
    second.control('runtime.primed', { agent: 'a', ok: true });
    await Bun.sleep(0);
    const taken = f.pool.take('a');
    expect(taken?.child.handle.pid).toBe(second.pid);
    // With the plans it was sent: its assignment need not carry them again.
    expect(taken?.primed?.agentPlan.name).toBe('a');
    expect(taken?.primed).toEqual({ agentPlan: testAgentPlan('a', '/tmp'), swarmPlan: swarm });
    f.pool.stop();
  });

  test('a spare whose rehearsal failed, or that names another agent than the one it was sent, is taken without plans', async () => {
    const { f, first, second } = await twoPrimedSpares();
    first.control('runtime.primed', { agent: 'a', ok: false });
    second.control('runtime.primed', { agent: 'b', ok: true });
    await Bun.sleep(0);
    expect([f.pool.take('a'), f.pool.take('a')].map((taken) => [taken?.child.handle.pid, taken?.primed])).toEqual([
      [first.pid, undefined],
      [second.pid, undefined],
    ]);
    f.pool.stop();
  });

  test('after a take for another agent the next spares are primed for that one; a spare primed for one agent still serves another', async () => {
    const f = primingFixture();
    f.pool.fill();
    await bootAll(f, 100);
    const [first] = f.launcher.children;
    if (!first) throw new Error('a spare expected');
    first.control('runtime.primed', { agent: 'a', ok: true });
    await Bun.sleep(0);
    // No spare is primed for 'b': it gets a ready one anyway.
    expect(f.pool.take('b')?.ready).toBe(true);
    f.pool.fill();
    await bootAll(f, 100);
    const refill = f.launcher.children[2];
    if (!refill) throw new Error('a refill expected');
    await eventually(() => primesSent(refill).length === 1, 'runtime.prime at the refill', () => f.launcher.describe());
    expect(primesSent(refill)).toEqual(['b']);
    f.pool.stop();
  });
});

describe('warm pool size follows the rate of new instances', () => {
  test('with no recent new instances the pool keeps its minimum (one spare by default)', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    f.pool.fill();
    expect(f.pool.target).toBe(1);
    expect(f.launcher.children).toHaveLength(1);
  });

  test('new instances at 10 per second, spares booting in 200 ms: the pool grows to cover two boot times (4 spares)', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    newInstances(f, 20, 100);
    // 20 arrivals in the 2 s window = 10/s; 10/s × 0.2 s × 2 = 4.
    expect(f.pool.target).toBe(4);
    f.pool.fill();
    expect(f.pool.pids()).toHaveLength(4);
    // The first spare was handed over; four new ones boot.
    expect(f.launcher.children).toHaveLength(5);
  });

  test('a burst is seen before it fills the window: 5 new instances 100 ms apart already read as 10/s (4 spares)', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    newInstances(f, 5, 100);
    // 4 intervals in 0.5 s = 8/s → 8 × 0.2 s × 2 = 3.2 → 4; over the whole 2 s window it would be 2.5/s → 1.
    expect(f.pool.target).toBe(4);
  });

  test('two new instances close together are not a flood: the pool keeps its minimum', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    newInstances(f, 2, 10);
    // Read over at least half a second: 2/s × 0.2 s × 2 = 0.8 → the minimum, not 100/s → MAX_SPARES.
    expect(f.pool.target).toBe(1);
  });

  test('the pool never grows beyond the room memory leaves (the live-process budget)', async () => {
    const f = poolFixture({ room: () => 2 });
    f.pool.fill();
    await bootAll(f, 200);
    newInstances(f, 40, 50);
    f.pool.fill();
    expect(f.pool.target).toBe(2);
    expect(f.pool.pids()).toHaveLength(2);
  });

  test('nor beyond MAX_SPARES, whatever the rate', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 1_000);
    newInstances(f, 100, 10);
    f.pool.fill();
    expect(f.pool.target).toBe(MAX_SPARES);
    expect(f.pool.pids()).toHaveLength(MAX_SPARES);
  });

  test('a pool with no room left still keeps its minimum spare', async () => {
    const f = poolFixture({ room: () => 0 });
    f.pool.fill();
    expect(f.pool.target).toBe(1);
    expect(f.pool.pids()).toHaveLength(1);
  });

  test('once the demand has left the window, spares beyond the minimum are stopped', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    newInstances(f, 20, 100);
    f.pool.fill();
    await bootAll(f, 200);
    expect(f.pool.pids()).toHaveLength(4);
    f.clock.t += DEMAND_WINDOW_MS + 1;
    f.pool.fill();
    expect(f.pool.target).toBe(1);
    expect(f.pool.pids()).toHaveLength(1);
    const stopped = f.launcher.children.filter((c) => c.signals.includes('SIGKILL'));
    expect(stopped).toHaveLength(3);
  });

  test('GOONDAN_WARM_POOL=0 (size 0) stays off whatever the rate', () => {
    const f = poolFixture({ size: 0 });
    newInstances(f, 50, 10);
    f.pool.fill();
    expect(f.pool.target).toBe(0);
    expect(f.launcher.children).toHaveLength(0);
  });
});

describe('spares boot at most as many at once as the pool allows (the machine’s cores)', () => {
  test('a rate that wants four spares boots two; each one ready lets the next boot, up to the four', async () => {
    const f = poolFixture({ maxBooting: 2 });
    f.pool.fill();
    await bootAll(f, 200);
    newInstances(f, 20, 100);
    expect(f.pool.target).toBe(4);
    f.pool.fill();
    const booting = () => f.launcher.children.filter((c) => c.alive && c.sent.length === 0);
    // The first spare was handed over; two boot, not four.
    expect(booting()).toHaveLength(2);
    await bootAll(f, 200);
    // Their runtime.ready freed the slots: the other two boot (the refill runs after a short delay).
    await eventually(() => booting().length === 2 && f.launcher.children.length === 5, 'the next two spares booting', () => f.launcher.describe());
    await bootAll(f, 200);
    expect(f.pool.pids()).toHaveLength(4);
    f.pool.stop();
  });
});

describe('primed: what a daemon waits for before it says ready', () => {
  test('pending while the first spare boots; resolved once it said runtime.ready', async () => {
    const f = poolFixture();
    f.pool.fill();
    let primed = false;
    void f.pool.spareReady().then(() => {
      primed = true;
    });
    await Bun.sleep(0);
    expect(primed).toBe(false);
    await bootAll(f, 200);
    await eventually(() => primed, 'spareReady() to resolve after the spare said runtime.ready', () => f.launcher.describe());
  });

  test('resolved at once when the pool is off', async () => {
    const f = poolFixture({ size: 0 });
    await f.pool.spareReady();
    expect(f.pool.pids()).toEqual([]);
  });

  test('resolved when the pool gives up after spares that keep dying (agents then start cold)', async () => {
    const f = poolFixture();
    f.pool.fill();
    const primed = f.pool.spareReady();
    for (let n = 1; n <= 3; n++) (await f.launcher.waitForLaunch(n)).crash();
    await primed;
    expect(f.pool.enabled).toBe(false);
  });
});

describe('a new instance at the start of a burst (no spare ready yet)', () => {
  test('gets a booting spare that is past half its boot (the oldest); the others stay in the pool', async () => {
    const f = poolFixture({ size: 2 });
    f.pool.fill();
    await bootAll(f, 200); // both boot in 200 ms: the measured boot time
    f.pool.take();
    f.pool.take();
    await eventually(() => f.launcher.children.length === 4, 'two refills launched', () => f.launcher.describe());
    const [older, newer] = f.launcher.children.slice(2);
    // Both still booting, 120 ms in: past half the measured 200 ms boot.
    f.clock.t += 120;
    const taken = f.pool.take();
    expect(taken).toMatchObject({ ready: false });
    expect(taken?.child.handle.pid).toBe(older?.pid);
    // It left the pool: its runtime.ready is its new owner's, not a spare's.
    expect(f.pool.pids()).not.toContain(older?.pid ?? -1);
    expect(f.pool.pids()).toContain(newer?.pid ?? -1);
  });

  test('a spare that has not done half its boot is not taken: the new instance starts cold', async () => {
    const f = poolFixture();
    f.pool.fill();
    await bootAll(f, 200);
    f.pool.take();
    await eventually(() => f.launcher.children.length === 2, 'the refill launched', () => f.launcher.describe());
    f.clock.t += 50;
    expect(f.pool.take()).toBeUndefined();
  });
});

describe('the pool’s minimum when GOONDAN_WARM_POOL is not set', () => {
  test('one spare for a swarm of one agent, two for several (a conversation’s first exchange starts two instances)', () => {
    expect([1, 2, 3, 12].map(defaultWarmPoolSize)).toEqual([1, 2, 2, 2]);
  });
});
