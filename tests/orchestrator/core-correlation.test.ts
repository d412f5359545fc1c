/**
 * Responses are routed by correlationId to the exact requester incarnation (ARCHITECTURE §2): never
 * to another caller, never to a process that replaced the one that asked.
 */
import { describe, expect, test } from 'bun:test';
import { inReplyToOf } from '../../shared/ipc/control-events.ts';
import { makeReplyEvent } from '../../shared/ipc/reply-events.ts';
import { type CoreFixture, coreFixtures } from './helpers/core-fixture.ts';
import { settled } from './helpers/eventually.ts';
import type { FakeChild } from './helpers/fake-child.ts';

const fixture = coreFixtures();

function repliesTo(child: FakeChild, correlationId: string | undefined) {
  return child.replies().filter((e) => inReplyToOf(e) === correlationId);
}

/** a:k asks b:k, is replaced (`replace`) while b works, then b answers: the answer must reach nobody. */
async function expectLateReplyDropped(f: CoreFixture, replace: (f: CoreFixture, caller: FakeChild) => Promise<void>): Promise<void> {
  const caller = await f.runningTurn('a', 'k');
  const request = caller.child.request('b', { during: caller.turn });
  const callee = await f.launcher.waitForAssigned('b', 'k');
  const work = await callee.waitForWork(1);
  await replace(f, caller.child);
  const successor = await f.launcher.waitForAssigned('a', 'k', 2);
  // The successor gets the unacknowledged turn again …
  await successor.waitForWork(1);
  callee.runTurn(work, 'late answer');
  const correlationId = request.replyTo?.correlationId;
  await f.waitForLog((l) => l.msg === 'requester is gone; reply dropped' && l.correlationId === correlationId, 'the late reply dropped');
  // … but never the answer to a question it did not ask.
  expect(repliesTo(successor, correlationId)).toHaveLength(0);
  expect(f.core.router.pending.size).toBe(0);
}

describe('responses by correlationId', () => {
  test('two instances asking the same callee at once each get their own reply', async () => {
    const f = fixture({ interAgent: { instanceKeys: 'scoped', sharedInstanceKeys: ['shared'], maxHops: 32, maxMessagesPerTrace: 256 } });
    const one = await f.runningTurn('a', '1');
    const two = await f.runningTurn('a', '2');
    const fromOne = one.child.request('b', { during: one.turn, instanceKey: 'shared' });
    const fromTwo = two.child.request('b', { during: two.turn, instanceKey: 'shared' });
    const callee = await f.launcher.waitForAssigned('b', 'shared');
    const first = await callee.waitForWork(1);
    const second = await callee.waitForWork(2);
    // Answered in the opposite order of arrival.
    callee.runTurn(second, `answer to ${second.source.name}:${second.input}`);
    callee.runTurn(first, `answer to ${first.source.name}:${first.input}`);
    expect((await one.child.waitForReply(fromOne)).output).toBe(`answer to a:${fromOne.input}`);
    expect((await two.child.waitForReply(fromTwo)).output).toBe(`answer to a:${fromTwo.input}`);
    expect(one.child.replies()).toHaveLength(1);
    expect(two.child.replies()).toHaveLength(1);
    expect(f.core.router.pending.size).toBe(0);
  });

  test('a reply for an unknown correlationId is dropped', async () => {
    const f = fixture();
    const caller = await f.runningTurn('a', 'k');
    const callee = await f.runningTurn('b', 'k');
    callee.child.post('a', makeReplyEvent('corr_nobody_asked', callee.child.source, { status: 'ok', output: 'stray' }));
    await f.waitForLog((l) => l.msg === 'response for an unknown or expired request; dropped' && l.correlationId === 'corr_nobody_asked', 'the stray reply dropped');
    // The route still works, and the stray reply reached nobody.
    const request = caller.child.request('b', { during: caller.turn });
    callee.child.runTurn(await callee.child.waitForWork(2), 'real answer');
    expect((await caller.child.waitForReply(request)).output).toBe('real answer');
    expect(caller.child.replies().map((e) => e.input)).toEqual(['real answer']);
    expect(repliesTo(callee.child, 'corr_nobody_asked')).toHaveLength(0);
  });

  test('a reply for a requester that crashed and respawned is not delivered to the new incarnation', async () => {
    await expectLateReplyDropped(fixture(), async (f, caller) => caller.crash());
  });

  test('a reply for a requester that was restarted (goondan restart) is not delivered to its replacement', async () => {
    await expectLateReplyDropped(fixture(), async (f) => {
      expect(await settled(f.core.restart((p) => p.key === 'a:k', 'restart'), 'restart of a:k')).toBe(1);
    });
  });

  test('a malformed reply reaches an external caller as IPC_DELIVERY_FAILED', async () => {
    const f = fixture();
    const reply = f.ask('b', 'question');
    const callee = await f.launcher.waitForAssigned('b', 'default');
    const work = await callee.waitForWork(1);
    const correlationId = work.replyTo?.correlationId ?? '';
    callee.post('orchestrator', { ...makeReplyEvent(correlationId, callee.source, { status: 'ok', output: 'x' }), metadata: { inReplyTo: correlationId, status: 'fine' } });
    const outcome = await settled(reply, 'the reply to question');
    expect(outcome.status).toBe('error');
    expect(outcome.error?.code).toBe('IPC_DELIVERY_FAILED');
  });
});
