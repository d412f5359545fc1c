/**
 * The instance lifecycle (SPEC.md §1.2 `policy.lifecycle`, issue 12) in the orchestrator core over
 * the in-memory transport: idle instances are passivated and come back on their next event, the
 * live-process limit passivates the least recently used idle instance first and otherwise queues
 * (the event waits in the durable inbox), and state GC deletes what stayed idle past its grace.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { instancePaths } from '../../shared/state-paths.ts';
import { coreFixtures } from './helpers/core-fixture.ts';
import { eventually, settled } from './helpers/eventually.ts';

const fixture = coreFixtures();
const answering = { answer: (event: { input?: string }) => `ok: ${event.input ?? ''}` };

describe('ttlSeconds: idle instances are passivated', () => {
  test('an instance idle past its TTL drains (reason passivate), keeps its row as passivated without a pid, and its next event starts it again', async () => {
    const f = fixture({ lifecycle: { ttlMs: 300 }, behaviour: answering });
    f.core.start(() => true);
    expect(await settled(f.ask('a', 'first', { instanceKey: 'k1' }), 'first reply')).toMatchObject({ output: 'ok: first' });
    const first = await f.launcher.waitForAssigned('a', 'k1');
    await first.waitFor((m) => m.type === 'shutdown' && m.payload.reason === 'passivate', 'a shutdown with reason passivate');
    const row = await f.waitForProcess('a', 'k1', (p) => p.status === 'passivated', 'to be passivated');
    expect(row.alive).toBe(false);
    expect((await f.core.processRows()).find((r) => r.agent === 'a' && r.instanceKey === 'k1')).toMatchObject({ status: 'passivated', pid: null });
    expect(await settled(f.ask('a', 'second', { instanceKey: 'k1' }), 'second reply')).toMatchObject({ output: 'ok: second' });
    expect(f.launcher.assigned('a', 'k1')).toHaveLength(2);
  });

  test('an instance with work (a running turn) is never passivated', async () => {
    const f = fixture({ lifecycle: { ttlMs: 200 } });
    f.core.start(() => true);
    const { child } = await f.runningTurn('a', 'busy');
    f.core.lifecycle.sweep(Date.now() + 10_000);
    await child.sync();
    expect(child.received.some((m) => m.type === 'shutdown')).toBe(false);
    expect(f.process('a', 'busy').status).toBe('processing');
  });
});

describe('maxLiveProcesses', () => {
  test('a new instance beyond the limit passivates the least recently used idle one first; live processes never exceed the limit', async () => {
    const f = fixture({ lifecycle: { ttlMs: 0, maxLiveProcesses: 2 }, behaviour: answering });
    let maxSeen = 0;
    const sample = setInterval(() => (maxSeen = Math.max(maxSeen, f.core.supervisor.liveAgentCount())), 1);
    try {
      await settled(f.ask('a', 'one', { instanceKey: 'k1' }), 'k1');
      await settled(f.ask('a', 'two', { instanceKey: 'k2' }), 'k2');
      expect(await settled(f.ask('a', 'three', { instanceKey: 'k3' }), 'k3')).toMatchObject({ output: 'ok: three' });
      expect(f.process('a', 'k1').status).toBe('passivated');
      expect(f.process('a', 'k2').alive).toBe(true);
      expect(await settled(f.ask('a', 'four', { instanceKey: 'k1' }), 'k1 again')).toMatchObject({ output: 'ok: four' });
      expect(f.process('a', 'k2').status).toBe('passivated');
    } finally {
      clearInterval(sample);
    }
    expect(maxSeen).toBeLessThanOrEqual(2);
  });

  test('counting live agents asks only the started processes, not every passivated row (10,000 rows at capacity)', async () => {
    const f = fixture({ lifecycle: { ttlMs: 0, maxLiveProcesses: 2 }, behaviour: answering });
    for (const key of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6']) await settled(f.ask('a', key, { instanceKey: key }), key);
    await f.waitForProcess('a', 'k4', (p) => p.status === 'passivated', 'to be passivated');
    const live = f.core.supervisor.liveAgentCount();
    expect(live).toBeLessThanOrEqual(2);
    let asked = 0;
    for (const proc of f.core.supervisor.list()) {
      const alive = proc.alive;
      Object.defineProperty(proc, 'alive', { configurable: true, get: () => (asked++, alive) });
    }
    expect(f.core.supervisor.liveAgentCount()).toBe(live);
    expect(asked).toBe(live);
  });

  test('with no idle instance the new one waits queued (its event in the durable inbox, visible in /metrics) until one becomes idle', async () => {
    const f = fixture({ lifecycle: { ttlMs: 0, maxLiveProcesses: 1 } });
    const { child, turn } = await f.runningTurn('a', 'busy');
    const waiting = f.ask('a', 'let me in', { instanceKey: 'late' });
    await f.waitForProcess('a', 'late', (p) => p.status === 'queued', 'to be queued');
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'late' })).toBe(1);
    expect(f.metrics()).toContain('goondan_spawn_queue 1');
    expect(f.metrics()).toContain('goondan_max_live_processes 1');
    expect(f.launcher.assigned('a', 'late')).toHaveLength(0);
    child.runTurn(turn, 'done');
    const late = await f.launcher.waitForAssigned('a', 'late');
    late.runTurn(await late.waitForWork(1), 'finally');
    expect(await settled(waiting, 'the queued reply')).toMatchObject({ status: 'ok', output: 'finally' });
    expect(f.metrics()).toContain('goondan_spawn_queue 0');
  });
});

describe('gcGraceSeconds: state of long-idle instances is deleted', () => {
  test('a passivated instance idle past its grace loses its state directory; the deletion is counted', async () => {
    const f = fixture({ lifecycle: { ttlMs: 100, gcGraceMs: 400 }, behaviour: answering });
    f.core.start(() => true);
    await settled(f.ask('a', 'remember me', { instanceKey: 'gone' }), 'reply');
    const dir = instancePaths(f.stateRoot, f.swarm.workspaceId, 'a', 'gone').root;
    expect(existsSync(dir)).toBe(true);
    await eventually(() => !existsSync(dir) || undefined, 'the state directory of a:gone to be deleted', () => `exists: ${existsSync(dir)}`);
    expect(f.metrics()).toContain('goondan_instances_collected_total{agent="a"} 1');
  });
});
