/**
 * At-least-once delivery (ARCHITECTURE §3): every event stays in the durable inbox until its turn
 * completes; after a crash of the agent, or of the daemon, what is unacknowledged is delivered again
 * in order; an event that keeps crashing its agent is dead-lettered after MAX_DELIVERY_ATTEMPTS.
 */
import { describe, expect, test } from 'bun:test';
import { MAX_DELIVERY_ATTEMPTS } from '../../orchestrator/delivery/delivery.ts';
import { type CoreFixture, coreFixtures } from './helpers/core-fixture.ts';
import { eventually, settled } from './helpers/eventually.ts';
import type { FakeChild } from './helpers/fake-child.ts';

const fixture = coreFixtures();
const K = { agent: 'a', instanceKey: 'k' };

/** a:k receives 'one', 'two', 'three' and completes the turn of 'one' only; returns its child. */
async function threeEventsFirstAcknowledged(f: CoreFixture): Promise<FakeChild> {
  for (const input of ['one', 'two', 'three']) f.tell('a', input, { instanceKey: 'k' });
  const child = await f.launcher.waitForAssigned('a', 'k');
  const one = await child.waitForWork(1);
  await child.waitForWork(3);
  child.runTurn(one, 'done');
  await eventually(() => f.core.delivery.pendingCount(K) === 2, 'one of three events acknowledged', () => `${f.core.delivery.pendingCount(K)} pending`);
  return child;
}

describe('redelivery after an agent crash', () => {
  test('unacknowledged events are delivered again, in order, to the respawned process; an acknowledged one is not', async () => {
    const f = fixture();
    const first = await threeEventsFirstAcknowledged(f);
    const two = first.work()[1];
    if (!two) throw new Error('no second event');
    first.turnStarted(two.id);
    first.crash();
    const second = await f.launcher.waitForAssigned('a', 'k', 2);
    await second.waitForWork(2);
    expect(second.work().map((e) => e.input)).toEqual(['two', 'three']);
    expect(second.work().map((e) => e.id)).toEqual(first.work().slice(1).map((e) => e.id));
    expect(f.process('a', 'k').consecutiveCrashes).toBe(1);
  });

  test(`an event that crashes its agent ${MAX_DELIVERY_ATTEMPTS} times is dead-lettered: the caller gets AGENT_CRASHED, the crash count is reset`, async () => {
    const f = fixture();
    const reply = f.ask('a', 'poison', { instanceKey: 'k' });
    for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
      const child = await f.launcher.waitForAssigned('a', 'k', attempt);
      const poison = await child.waitForWork(1, `delivery #${attempt} of the poison event`);
      child.turnStarted(poison.id);
      child.crash();
    }
    const outcome = await settled(reply, 'the answer to the poison event');
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ code: 'AGENT_CRASHED', category: 'system' });
    const proc = await f.waitForProcess('a', 'k', (p) => p.alive, 'respawned after the dead letter');
    // The crash that dead-lettered still counts; the ones before it are forgotten (no long backoff for a healthy instance).
    expect(proc.consecutiveCrashes).toBe(1);
    expect(f.core.delivery.pendingCount(K)).toBe(0);
    expect(f.metrics()).toContain('goondan_dead_letters_total{agent="a"} 1');
    // The respawn does not get the poison event again, and serves the next one.
    const next = await f.launcher.waitForAssigned('a', 'k', MAX_DELIVERY_ATTEMPTS + 1);
    const after = f.ask('a', 'healthy', { instanceKey: 'k' });
    const healthy = await next.waitForWork(1);
    expect(healthy.input).toBe('healthy');
    next.runTurn(healthy, 'fine');
    expect(await settled(after, 'the answer after the dead letter')).toMatchObject({ status: 'ok', output: 'fine' });
  });

  test('poison events one after another never push a healthy instance into crash-loop backoff', async () => {
    const f = fixture();
    const replies = [f.ask('a', 'poison 1', { instanceKey: 'k' }), f.ask('a', 'poison 2', { instanceKey: 'k' })];
    for (let attempt = 1; attempt <= 2 * MAX_DELIVERY_ATTEMPTS; attempt++) {
      const child = await f.launcher.waitForAssigned('a', 'k', attempt);
      const poison = await child.waitForWork(1, `delivery #${attempt}`);
      child.turnStarted(poison.id);
      child.crash();
    }
    for (const reply of replies) expect((await settled(reply, 'a poison answer')).error?.code).toBe('AGENT_CRASHED');
    expect(f.logs.some((l) => l.msg === 'crashLoopBackOff')).toBe(false);
    expect(f.launcher.children).toHaveLength(2 * MAX_DELIVERY_ATTEMPTS + 1);
  });
});

describe('redelivery after a daemon restart', () => {
  test('a second core over the same state root redelivers, in order, what the first left unacknowledged', async () => {
    const first = fixture();
    await threeEventsFirstAcknowledged(first);
    await first.stop();

    const second = fixture({ stateRoot: first.stateRoot });
    second.core.start((name) => second.swarm.agents.includes(name));
    const after = await second.launcher.waitForAssigned('a', 'k');
    await after.waitForWork(2);
    expect(after.work().map((e) => e.input)).toEqual(['two', 'three']);
    expect(second.launcher.children).toHaveLength(1);
  });

  test('pending events of an agent no longer in the swarm are not started on a daemon restart', async () => {
    const first = fixture();
    first.tell('b', 'left behind', { instanceKey: 'k' });
    await (await first.launcher.waitForAssigned('b', 'k')).waitForWork(1);
    await first.stop();

    const second = fixture({ stateRoot: first.stateRoot });
    second.core.start((name) => name !== 'b');
    second.tell('a', 'probe', { instanceKey: 'k' });
    await (await second.launcher.waitForAssigned('a', 'k')).waitForWork(1);
    expect(second.launcher.assigned('b', 'k')).toHaveLength(0);
    expect(second.launcher.children).toHaveLength(1);
  });
});
