/**
 * Replies an agent sent before its turn's fsync (`unsynced`, issue 12): the agent that asked gets
 * one at once and hears `runtime.reply.synced` once the callee acknowledged its turn; any other
 * requester gets it, unmarked, only then; a callee or an asker that exits in between makes the
 * daemon sync the callee's records itself.
 */
import { describe, expect, test } from 'bun:test';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { coreFixtures } from './helpers/core-fixture.ts';
import type { FakeChild } from './helpers/fake-child.ts';

const fixture = coreFixtures();
const SYNCED_RECORDS = 'synced the records of an agent that answered before its own sync';

function isNotice(message: TypedIpcMessage, correlationId: string | undefined): boolean {
  return message.type === 'event' && message.payload.type === 'runtime.reply.synced' && message.payload.metadata?.correlationId === correlationId;
}

function notices(child: FakeChild): TypedIpcMessage[] {
  return child.received.filter((message) => message.type === 'event' && message.payload.type === 'runtime.reply.synced');
}

/** a:1 asks b:1; b:1 answers before its sync. */
async function earlyAnswer(f: ReturnType<typeof fixture>): Promise<{ a: FakeChild; b: FakeChild; request: AgentEvent; work: AgentEvent }> {
  const { child: a, turn } = await f.runningTurn('a', '1');
  const request = a.request('b', { during: turn });
  const b = await f.launcher.waitForAssigned('b', '1');
  const work = await b.waitForWork(1);
  b.turnStarted(work.id);
  b.reply(work, { output: 'early' }, { unsynced: true });
  return { a, b, request, work };
}

describe('an agent’s reply sent before its sync', () => {
  test('reaches the agent that asked at once, marked; that agent hears runtime.reply.synced once the callee acked its turn', async () => {
    const f = fixture();
    const { a, b, request, work } = await earlyAnswer(f);
    expect(await a.waitForReply(request)).toMatchObject({ status: 'ok', output: 'early', unsynced: true });
    await b.sync();
    expect(notices(a)).toEqual([]);

    b.turnCompleted(work.id);
    await a.waitFor((message) => isNotice(message, request.replyTo?.correlationId), 'runtime.reply.synced');
    expect(notices(a)).toHaveLength(1);
  });

  test('reaches a caller outside the swarm only once the callee acked its turn, and unmarked', async () => {
    const f = fixture();
    const reply = f.ask('b', 'hello', { instanceKey: 'h' });
    let answered = false;
    void reply.then(() => {
      answered = true;
    });
    const b = await f.launcher.waitForAssigned('b', 'h');
    const work = await b.waitForWork(1);
    b.reply(work, { output: 'early' }, { unsynced: true });
    await b.sync();
    expect(answered).toBe(false);

    b.turnCompleted(work.id);
    const outcome = await reply;
    expect(outcome).toMatchObject({ status: 'ok', output: 'early' });
    expect(outcome.unsynced).toBeUndefined();
  });

  test('a callee that exits before its ack: the daemon syncs its records, then tells the asker', async () => {
    const f = fixture();
    const { a, b, request } = await earlyAnswer(f);
    await a.waitForReply(request);
    b.crash();
    const line = await f.waitForLog((l) => l.msg === SYNCED_RECORDS, 'the callee’s records synced');
    expect(line).toMatchObject({ callee: 'b:1', why: 'it exited before acknowledging its turn' });
    await a.waitFor((message) => isNotice(message, request.replyTo?.correlationId), 'runtime.reply.synced');
  });

  test('an asker that exits while it waits for the notice: the callee’s records are synced at once (its successor would not wait)', async () => {
    const f = fixture();
    const { a, b, request, work } = await earlyAnswer(f);
    await a.waitForReply(request);
    a.crash();
    const line = await f.waitForLog((l) => l.msg === SYNCED_RECORDS, 'the callee’s records synced');
    expect(line).toMatchObject({ callee: 'b:1', why: 'a:1, which got its reply early, exited' });
    // The ack releases nothing twice and tells no one.
    b.turnCompleted(work.id);
    await b.sync();
    expect(notices(a)).toEqual([]);
    expect(f.logs.filter((l) => l.msg === SYNCED_RECORDS)).toHaveLength(1);
  });
});
