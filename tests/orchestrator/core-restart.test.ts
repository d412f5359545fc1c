/**
 * `goondan restart` and `--watch` reloads replace an instance's process: once the old one has
 * drained and exited, exactly one new process takes its place — also when events were waiting for
 * it. Before, the old row was respawned on its clean exit (events were pending) and then replaced
 * too: two processes for one instance, one of them untracked, each running the queued events.
 */
import { describe, expect, test } from 'bun:test';
import { coreFixtures } from './helpers/core-fixture.ts';
import { settled } from './helpers/eventually.ts';

const fixture = coreFixtures();

describe('a restart under load', () => {
  test('with a turn running and an event queued: one new process, tracked, which gets both events', async () => {
    const f = fixture();
    const { child, turn } = await f.runningTurn('a', 'k');
    f.tell('a', 'queued behind it', { instanceKey: 'k' });
    // The running turn never finishes in the old process: it drains (the fake acks the shutdown) with both events pending.
    expect(await settled(f.core.restart((p) => p.key === 'a:k', 'restart'), 'the restart')).toBe(1);
    const replacement = await f.launcher.waitForAssigned('a', 'k', 2);
    expect((await replacement.waitForWork(2)).input).toBe('queued behind it');
    expect(replacement.workReceived().map((event) => event.id)).toContain(turn.id);
    // Give an extra spawn every chance to show.
    f.core.supervisor.reconcile();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(f.launcher.assigned('a', 'k')).toHaveLength(2);
    expect(f.launcher.assigned('a', 'k').filter((c) => c.alive)).toEqual([replacement]);
    expect(child.alive).toBe(false);
    const rows = f.core.supervisor.list().filter((p) => p.key === 'a:k');
    expect(rows.map((p) => p.pid)).toEqual([replacement.pid]);
  });
});
