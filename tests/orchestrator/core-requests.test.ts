/**
 * Requests between agents (SPEC.md §2.6): cycles on the call chain (nodes `agent:instanceKey`) are
 * refused before anything is delivered, and a request that outlives its `__timeoutMs` is answered
 * AGENT_REQUEST_TIMEOUT by the orchestrator.
 */
import { describe, expect, test } from 'bun:test';
import { callChainOf } from '../../shared/ipc/request-metadata.ts';
import { coreFixtures } from './helpers/core-fixture.ts';
import { settled } from './helpers/eventually.ts';

const fixture = coreFixtures();


describe('cycle refusal', () => {
  test('A→B→A on the same instances is refused with CIRCULAR_CALL_DETECTED before anything is delivered', async () => {
    const f = fixture();
    const a = await f.runningTurn('a', '1');
    a.child.request('b', { during: a.turn });
    const b = await f.launcher.waitForAssigned('b', '1');
    const bTurn = await b.waitForWork(1);
    expect(callChainOf(bTurn)).toEqual(['a:1']);
    const back = b.request('a', { during: bTurn });
    const outcome = await b.waitForReply(back);
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ code: 'CIRCULAR_CALL_DETECTED', category: 'user' });
    expect(outcome.error?.message).toContain('a:1 → b:1 → a:1');
    // Nothing reached a:1, nothing was queued for it, and nobody waits on it.
    expect(a.child.work()).toHaveLength(1);
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: '1' })).toBe(1);
    expect(f.core.router.pending.all().map((r) => r.targetKey)).toEqual(['b:1']);
  });

  test('A→B→A is refused even when B names the instance explicitly', async () => {
    const f = fixture();
    const a = await f.runningTurn('a', '1');
    a.child.request('b', { during: a.turn, instanceKey: '1/9' });
    const b = await f.launcher.waitForAssigned('b', '1/9');
    const back = b.request('a', { during: await b.waitForWork(1), instanceKey: '1' });
    expect((await b.waitForReply(back)).error?.code).toBe('CIRCULAR_CALL_DETECTED');
  });

  test('A:1→B:1→A:1/2 is not a cycle: another instance of the same agent may be called', async () => {
    const f = fixture();
    const a = await f.runningTurn('a', '1');
    a.child.request('b', { during: a.turn });
    const b = await f.launcher.waitForAssigned('b', '1');
    const onward = b.request('a', { during: await b.waitForWork(1), instanceKey: '1/2' });
    const a2 = await f.launcher.waitForAssigned('a', '1/2');
    const a2Turn = await a2.waitForWork(1);
    expect(callChainOf(a2Turn)).toEqual(['a:1', 'b:1']);
    a2.runTurn(a2Turn, 'from a:2');
    expect(await b.waitForReply(onward)).toMatchObject({ status: 'ok', output: 'from a:2' });
  });
});

describe('request timeouts', () => {
  test('a request whose __timeoutMs passes is answered AGENT_REQUEST_TIMEOUT with status timeout', async () => {
    const f = fixture();
    const a = await f.runningTurn('a', 'k');
    // b never answers.
    const request = a.child.request('b', { during: a.turn, timeoutMs: 30 });
    const outcome = await a.child.waitForReply(request);
    expect(outcome.status).toBe('timeout');
    expect(outcome.error).toMatchObject({ code: 'AGENT_REQUEST_TIMEOUT', category: 'system' });
    expect(outcome.error?.message).toContain('30 ms');
    expect(f.core.router.pending.size).toBe(0);
  });

  test("a callee's answer after the timeout is dropped, not delivered as a second reply", async () => {
    const f = fixture();
    const a = await f.runningTurn('a', 'k');
    const request = a.child.request('b', { during: a.turn, timeoutMs: 30 });
    const b = await f.launcher.waitForAssigned('b', 'k');
    const work = await b.waitForWork(1);
    await a.child.waitForReply(request);
    b.runTurn(work, 'too late');
    await f.waitForLog((l) => l.msg === 'response for an unknown or expired request; dropped' && l.correlationId === request.replyTo?.correlationId, 'the late answer dropped');
    expect(a.child.replies()).toHaveLength(1);
  });

  test('an external request with timeoutMs is answered AGENT_REQUEST_TIMEOUT when the agent does not answer', async () => {
    const f = fixture();
    const reply = f.ask('a', 'are you there?', { timeoutMs: 30 });
    const outcome = await settled(reply, 'the timeout answer');
    expect(outcome.status).toBe('timeout');
    expect(outcome.error?.code).toBe('AGENT_REQUEST_TIMEOUT');
  });
});

describe('a waiting external request is stored off the event loop (issue 12)', () => {
  test('its reply is released only once the event is on disk, even when the agent answered first', async () => {
    const f = fixture();
    let store: () => void = () => {};
    const onDisk = new Promise<void>((resolve) => {
      store = resolve;
    });
    // The fsync of the accepted event is still running when the agent answers.
    f.core.delivery.settle = () => onDisk;
    f.launcher.behaviour.answer = (event) => `got ${event.input}`;
    let released = false;
    const reply = f.ask('b', 'x', { instanceKey: 'k' }).then((outcome) => {
      released = true;
      return outcome;
    });
    const child = await f.launcher.waitForAssigned('b', 'k');
    await child.waitForWork(1);
    // The agent answered and acknowledged (its reply reached the router before its ack).
    await f.waitForProcess('b', 'k', (p) => p.status === 'idle' && f.core.delivery.pendingCount(p.id) === 0, 'done with its turn');
    await Bun.sleep(10);
    expect(released).toBe(false);
    store();
    expect(await settled(reply, 'the reply once stored')).toMatchObject({ status: 'ok', output: 'got x' });
  });
});
