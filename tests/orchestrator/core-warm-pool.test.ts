/**
 * The warm pool (ARCHITECTURE §2): bare agent processes that already said `runtime.ready` wait for
 * an assignment; a new instance takes one and is assigned at once (the same start-up protocol minus
 * the wait); the pool refills behind it, is killed on shutdown, and turns itself off when its
 * processes keep dying instead of looping.
 */
import { describe, expect, test } from 'bun:test';
import { coreFixtures } from './helpers/core-fixture.ts';
import { eventually } from './helpers/eventually.ts';

const fixture = coreFixtures();

describe('warm pool', () => {
  test('a new instance takes a ready pool process and is assigned at once; the pool refills', async () => {
    const f = fixture({ warmPoolSize: 1 });
    f.core.start(() => true);
    const warm = await f.launcher.waitForLaunch(1);
    await eventually(() => f.core.pool.pids().length === 1, 'one ready pool process', () => f.launcher.describe());
    expect(f.core.processStatusCounts()).toEqual({ 'pool/idle': 1 });
    const rows = await f.core.processRows();
    expect(rows).toEqual([expect.objectContaining({ kind: 'pool', pid: warm.pid, status: 'idle' })]);

    f.tell('a', 'hello', { instanceKey: 'k' });
    // The pool process became a:k without a second runtime.ready.
    expect((await f.launcher.waitForAssigned('a', 'k')).pid).toBe(warm.pid);
    expect((await warm.waitForWork(1)).input).toBe('hello');
    expect(warm.sent.filter((m) => m.type === 'event' && m.payload.type === 'runtime.ready')).toHaveLength(1);
    const refill = await f.launcher.waitForLaunch(2);
    await eventually(() => f.core.pool.pids().includes(refill.pid), 'the refilled pool process ready', () => f.launcher.describe());
    expect(refill.assignment).toBeUndefined();
  });

  test('shutdown kills idle pool processes', async () => {
    const f = fixture({ warmPoolSize: 2 });
    f.core.start(() => true);
    await eventually(() => f.core.pool.pids().length === 2, 'two pool processes', () => f.launcher.describe());
    await f.stop(100);
    for (const child of f.launcher.children) expect(child.signals).toEqual(['SIGKILL']);
    expect(f.core.pool.pids()).toEqual([]);
  });

  test('pool processes that keep dying before assignment turn the pool off; agents then start cold', async () => {
    const f = fixture({ warmPoolSize: 1, behaviour: { autoReady: false } });
    f.core.start(() => true);
    for (let n = 1; n <= 3; n++) (await f.launcher.waitForLaunch(n)).crash();
    await f.waitForLog((l) => l.msg === 'warm pool disabled after repeated failures; agents start cold', 'the pool disabled');
    expect(f.core.pool.enabled).toBe(false);
    f.launcher.behaviour.autoReady = true;
    f.tell('a', 'cold start', { instanceKey: 'k' });
    const cold = await f.launcher.waitForAssigned('a', 'k');
    expect(cold.pid).toBe((await f.launcher.waitForLaunch(4)).pid);
    expect((await cold.waitForWork(1)).input).toBe('cold start');
    expect(f.launcher.children).toHaveLength(4);
  });

  test('a new instance while the only spare is past half its boot takes that spare and assigns it on its runtime.ready: no cold start', async () => {
    const f = fixture({ warmPoolSize: 1, behaviour: { autoReady: false } });
    f.core.start(() => true);
    const spare = await f.launcher.waitForLaunch(1);
    // Older than half the boot time the pool assumes before it has measured one (300 ms).
    await Bun.sleep(200);
    f.tell('a', 'early', { instanceKey: 'k' });
    expect(spare.assignment).toBeUndefined();
    spare.ready();
    expect((await f.launcher.waitForAssigned('a', 'k')).pid).toBe(spare.pid);
    expect((await spare.waitForWork(1)).input).toBe('early');
    // Only the refill was launched after it; nothing started cold for a:k.
    expect(f.launcher.children.filter((c) => c.assignment?.role === 'agent')).toHaveLength(1);
  });

  test('a primed spare is assigned without its plans; one that refuses that (E_ASSIGNMENT_NOT_PRIMED) gets the whole assignment from then on', async () => {
    const f = fixture({ warmPoolSize: 1, behaviour: { autoStart: false } });
    f.core.start(() => true);
    const primeSpare = async (n: number) => {
      const spare = await f.launcher.waitForLaunch(n);
      await spare.waitFor((m) => m.type === 'event' && m.payload.type === 'runtime.prime', `runtime.prime at spare #${n}`);
      spare.control('runtime.primed', { agent: 'a', ok: true });
      await f.waitForLog((l) => l.msg === 'warm spare primed: it will be assigned without the plans it holds' && l.childPid === spare.pid, `spare #${n} primed`);
      return spare;
    };
    const first = await primeSpare(1);
    const reply = f.ask('a', 'hello', { instanceKey: 'k' });
    expect(await f.launcher.waitForAssigned('a', 'k')).toBe(first);
    expect(first.assignment).toEqual({ role: 'agent', agent: 'a', instanceKey: 'k', stateRoot: f.stateRoot, asPrimed: true });
    const refill = await primeSpare(2);
    first.failed({ code: 'E_ASSIGNMENT_NOT_PRIMED', category: 'system', message: 'holds no plan', details: { retryable: true } }, true);
    first.crash(1);
    // The restart takes the primed refill, and sends it the plans anyway.
    expect(await f.launcher.waitForAssigned('a', 'k', 2)).toBe(refill);
    expect(refill.assignment).toMatchObject({ role: 'agent', agent: 'a', instanceKey: 'k', agentPlan: { name: 'a' } });
    expect(refill.assignment).not.toHaveProperty('asPrimed');
    // As after any retryable start-up failure: the caller is told at once, the event stays queued and runs.
    expect(await reply).toMatchObject({ status: 'error', error: { code: 'E_ASSIGNMENT_NOT_PRIMED', details: { phase: 'startup' } } });
    refill.started();
    expect((await refill.waitForWork(1)).input).toBe('hello');
  });
});
