/**
 * Graceful shutdown (SPEC.md §2.3): every live child gets `shutdown`, may finish its turn and
 * answer its caller, acknowledges and exits; one that does not is killed after the grace period.
 * Every waiter is answered: callers of processes that are not running get DAEMON_STOPPING at once,
 * whatever is still pending after the drain gets it then.
 */
import { describe, expect, test } from 'bun:test';
import { coreFixtures } from './helpers/core-fixture.ts';
import { settled } from './helpers/eventually.ts';

const fixture = coreFixtures();

/** Whether `promise` has settled by the time already-queued work has run. */
function tracked(promise: Promise<unknown>): { readonly done: boolean } {
  const state = { done: false };
  void promise.then(() => {
    state.done = true;
  });
  return state;
}

describe('draining the children', () => {
  test('stop() sends shutdown to every live child and resolves once each has acknowledged and exited', async () => {
    const f = fixture();
    const children = [];
    for (const agent of ['a', 'b', 'c']) children.push((await f.runningTurn(agent, 'k')).child);
    await f.stop(1_000);
    for (const child of children) {
      const shutdown = child.received.find((m) => m.type === 'shutdown');
      expect(shutdown?.payload).toEqual({ gracePeriodMs: 1_000, reason: 'orchestrator_shutdown' });
      expect(child.exit).toEqual({ exitCode: 0, signal: null });
      expect(child.signals).toEqual([]);
    }
    expect(f.core.supervisor.list().map((p) => [p.key, p.alive, p.status])).toEqual([
      ['a:k', false, 'terminated'],
      ['b:k', false, 'terminated'],
      ['c:k', false, 'terminated'],
    ]);
    expect(f.logs.filter((l) => l.msg === 'shutdown acknowledged')).toHaveLength(3);
    expect(f.launcher.children).toHaveLength(3);
  });

  test('a caller waiting on a running turn still gets that turn’s reply during the drain', async () => {
    const f = fixture({ behaviour: { onShutdown: 'ignore' } });
    const reply = f.ask('a', 'long job', { instanceKey: 'k' });
    const child = await f.launcher.waitForAssigned('a', 'k');
    const work = await child.waitForWork(1);
    child.turnStarted(work.id);
    const stopping = f.stop(1_000);
    await child.waitFor((m) => m.type === 'shutdown', 'shutdown');
    child.reply(work, { output: 'finished while draining' });
    child.turnCompleted(work.id);
    child.shutdownAck();
    child.exitCleanly();
    expect(await settled(reply, 'the reply of the drained turn')).toMatchObject({ status: 'ok', output: 'finished while draining' });
    await stopping;
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'k' })).toBe(0);
  });

  test('a turn acknowledged as the shutdown goes out leaves the process draining', async () => {
    const f = fixture({ behaviour: { onShutdown: 'ignore' } });
    f.tell('a', 'job', { instanceKey: 'k' });
    const child = await f.launcher.waitForAssigned('a', 'k');
    const work = await child.waitForWork(1);
    // Sent before stop() but received after it: the message was in flight.
    child.turnStarted(work.id);
    const stopping = f.stop(1_000);
    await child.sync();
    expect(f.process('a', 'k').status).toBe('draining');
    child.shutdownAck();
    child.exitCleanly();
    await stopping;
  });

  test('a child that never acknowledges is killed with SIGKILL after the grace period', async () => {
    const f = fixture({ behaviour: { onShutdown: 'ignore' } });
    const { child } = await f.runningTurn('a', 'k');
    await f.stop(30);
    expect(child.signals).toEqual(['SIGKILL']);
    expect(child.exit).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(f.logs.some((l) => l.msg === 'grace period over: SIGKILL' && l.process === 'a:k' && l.acked === false)).toBe(true);
    // Retired: the kill is not a crash to recover from.
    expect(f.launcher.children).toHaveLength(1);
  });
});

describe('answering every waiter', () => {
  test('callers waiting on a process in crash-loop backoff get DAEMON_STOPPING at once, not after the grace period', async () => {
    const f = fixture({ backoff: { immediateRestarts: 0, baseMs: 60_000, maxMs: 60_000 } });
    // a:k is down for a minute.
    const crashing = (await f.runningTurn('a', 'k')).child;
    crashing.crash();
    await f.waitForProcess('a', 'k', (p) => p.status === 'crashLoopBackOff', 'in backoff');
    const external = f.ask('a', 'anyone there?', { instanceKey: 'k' });
    // b:k is running a turn that waits on a:k, and drains slowly.
    const b = await f.runningTurn('b', 'k');
    b.child.behaviour.onShutdown = 'ignore';
    const bCaller = f.ask('b', 'ask a for me', { instanceKey: 'k' });
    const bWork = await b.child.waitForWork(2);
    const toA = b.child.request('a', { during: bWork });
    await f.waitForLog((l) => l.msg === 'event routed' && l.to === 'a:k' && l.from === 'b', 'the request of b routed to a');

    const stopping = f.stop(10_000);
    const stopped = tracked(stopping);
    const outcome = await settled(external, 'the external caller of a:k');
    expect(outcome.error).toMatchObject({ code: 'DAEMON_STOPPING', category: 'system' });
    // The agent caller is answered too, while it drains, so its own turn can end.
    const toAOutcome = await b.child.waitForReply(toA);
    expect(toAOutcome.error?.code).toBe('DAEMON_STOPPING');
    expect(stopped.done).toBe(false);

    b.child.reply(bWork, { output: 'a is unavailable' });
    b.child.turnCompleted(bWork.id);
    b.child.shutdownAck();
    b.child.exitCleanly();
    expect(await settled(bCaller, 'the caller of b')).toMatchObject({ status: 'ok', output: 'a is unavailable' });
    await stopping;
  });

  test('what is still pending after the drain is answered DAEMON_STOPPING, and stays queued for the next start', async () => {
    const f = fixture();
    f.launcher.behaviour.onShutdown = 'ignore';
    const unanswered = f.ask('a', 'will not be answered', { instanceKey: 'k' });
    const child = await f.launcher.waitForAssigned('a', 'k');
    await child.waitForWork(1);
    const stopping = f.stop(1_000);
    await child.waitFor((m) => m.type === 'shutdown', 'shutdown');
    // Arrives during the drain: nothing new is started for it.
    const late = f.ask('c', 'too late', { instanceKey: 'k' });
    expect(f.launcher.children).toHaveLength(1);
    // The child leaves without answering.
    child.shutdownAck();
    child.exitCleanly();
    await stopping;
    for (const reply of [unanswered, late]) expect((await settled(reply, 'a pending caller')).error?.code).toBe('DAEMON_STOPPING');
    expect(f.core.router.pending.size).toBe(0);
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'k' })).toBe(1);
    expect(f.core.delivery.pendingCount({ agent: 'c', instanceKey: 'k' })).toBe(1);
  });

  test('a request a draining turn makes to an instance that is not running is answered DAEMON_STOPPING at once', async () => {
    const f = fixture();
    const { child, turn } = await f.runningTurn('a', 'k');
    child.behaviour.onShutdown = 'ignore';
    const stopping = f.stop(10_000);
    await child.waitFor((m) => m.type === 'shutdown', 'shutdown');
    const toB = child.request('b', { during: turn });
    expect((await child.waitForReply(toB)).error).toMatchObject({ code: 'DAEMON_STOPPING', category: 'system' });
    expect(f.launcher.children).toHaveLength(1);
    child.runTurn(turn, 'b is not there');
    child.shutdownAck();
    child.exitCleanly();
    await stopping;
  });
});
