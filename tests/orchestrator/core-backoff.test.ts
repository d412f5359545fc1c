/**
 * Crash-loop backoff (ARCHITECTURE §5, SPEC.md §2.2): crashes 1–5 respawn at once; crash n ≥ 6 waits
 * min(base·2^(n−6), max) ms before the next spawn; a completed turn resets the count. Run with the
 * fixture's short policy (base 20 ms, max 200 ms).
 */
import { describe, expect, test } from 'bun:test';
import { backoffDelayMs } from '../../orchestrator/process/crash-backoff.ts';
import { coreFixtures, TEST_BACKOFF } from './helpers/core-fixture.ts';
import { eventually } from './helpers/eventually.ts';

const fixture = coreFixtures();
const CRASHES = 10;

describe('crash-loop backoff schedule', () => {
  test('crashes 1–5 respawn at once; then each respawn waits base·2^(n−6) ms, capped at max', async () => {
    const f = fixture();
    f.tell('a', 'keep me alive', { instanceKey: 'k' });
    const expectedDelays = [0, 0, 0, 0, 0, 20, 40, 80, 160, 200];
    expect(expectedDelays.map((_, i) => backoffDelayMs(i + 1, TEST_BACKOFF))).toEqual(expectedDelays);
    for (let n = 1; n <= CRASHES; n++) {
      const child = await f.launcher.waitForAssigned('a', 'k', n);
      const proc = await f.waitForProcess('a', 'k', (p) => p.ready && p.pid === child.pid, `started as incarnation #${n}`);
      const before = Date.now();
      child.crash();
      const crashLine = await f.waitForLog((l) => l.msg === 'process crashed; respawning' && l.consecutiveCrashes === n, `crash #${n} handled`);
      const after = Date.now();
      const delay = expectedDelays[n - 1] ?? -1;
      expect(crashLine.backoffMs).toBe(delay);
      if (delay === 0) {
        // Respawned in the same exit handler: no backoff state, the next child is already launched.
        expect(proc.nextSpawnAllowedAt).toBeUndefined();
        expect(f.launcher.children).toHaveLength(n + 1);
        continue;
      }
      expect(proc.status).toBe('crashLoopBackOff');
      // Set to (time of the crash handling) + delay, and the crash was handled between `before` and `after`.
      const allowedAt = proc.nextSpawnAllowedAt ?? 0;
      expect(allowedAt).toBeGreaterThanOrEqual(before + delay);
      expect(allowedAt).toBeLessThanOrEqual(after + delay);
      expect(f.launcher.children).toHaveLength(n);
      const next = await f.launcher.waitForAssigned('a', 'k', n + 1);
      expect(next.launchedAt).toBeGreaterThanOrEqual(allowedAt);
    }
    expect(f.metrics()).toContain(`goondan_process_restarts_total{process="a"} ${CRASHES}`);
  });

  test('a completed turn resets the crash count: the next crash respawns at once', async () => {
    const f = fixture();
    f.tell('a', 'first', { instanceKey: 'k' });
    for (let n = 1; n <= TEST_BACKOFF.immediateRestarts; n++) {
      const child = await f.launcher.waitForAssigned('a', 'k', n);
      await f.waitForProcess('a', 'k', (p) => p.ready && p.pid === child.pid, `started as incarnation #${n}`);
      child.crash();
    }
    const healthy = await f.launcher.waitForAssigned('a', 'k', TEST_BACKOFF.immediateRestarts + 1);
    expect(f.process('a', 'k').consecutiveCrashes).toBe(TEST_BACKOFF.immediateRestarts);
    healthy.runTurn(await healthy.waitForWork(1), 'done');
    await f.waitForProcess('a', 'k', (p) => p.consecutiveCrashes === 0, 'crash count reset by the completed turn');
    healthy.crash();
    const line = await f.waitForLog((l) => l.msg === 'process crashed; respawning' && l.childPid === healthy.pid, 'the crash after the completed turn');
    expect(line).toMatchObject({ consecutiveCrashes: 1, backoffMs: 0 });
    await f.launcher.waitForAssigned('a', 'k', TEST_BACKOFF.immediateRestarts + 2);
  });
});

describe('events for an instance in backoff', () => {
  test('wait for the backoff to end instead of spawning early, then are delivered to the respawned process', async () => {
    const f = fixture({ backoff: { immediateRestarts: 0, baseMs: 50, maxMs: 50 } });
    f.tell('a', 'first', { instanceKey: 'k' });
    const first = await f.launcher.waitForAssigned('a', 'k');
    first.runTurn(await first.waitForWork(1), 'done');
    await eventually(() => f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'k' }) === 0, 'the first event acknowledged', () => 'still pending');
    first.crash();
    const proc = await f.waitForProcess('a', 'k', (p) => p.status === 'crashLoopBackOff', 'in crash-loop backoff');
    const allowedAt = proc.nextSpawnAllowedAt ?? Number.POSITIVE_INFINITY;
    f.tell('a', 'during backoff', { instanceKey: 'k' });
    expect(f.launcher.children).toHaveLength(1);
    expect(proc.status).toBe('crashLoopBackOff');
    const second = await f.launcher.waitForAssigned('a', 'k', 2);
    expect(second.launchedAt).toBeGreaterThanOrEqual(allowedAt);
    expect((await second.waitForWork(1)).input).toBe('during backoff');
  });
});
