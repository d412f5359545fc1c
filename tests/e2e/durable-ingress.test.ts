/**
 * Issue 10, ingress: `Idempotency-Key` (header or body) maps a retry to the event it created — one
 * turn, the same eventId, with `wait` the original reply, also after a daemon restart — and
 * `GET /v1/events/{eventId}` reports queued | running | done (+ reply) | dead; a dead event is also an
 * `event.dead` runtime event.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';
import { eventOf, openStream, type SseFrame } from './sse-client.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/chaos');
const daemons: Daemon[] = [];
afterEach(() => {
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

async function start(stateRoot = tempStateRoot()): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { stateRoot, env: { GOONDAN_BACKOFF_BASE_MS: '100' }, args: ['-s', 'chaos'] });
  daemons.push(daemon);
  return daemon;
}

let sharedDaemon: Promise<Daemon> | undefined;
/** One daemon for the tests that do not restart it (each has its own keys): started by the first that asks, killed after the file. */
function shared(): Promise<Daemon> {
  sharedDaemon ??= startDaemon(BUNDLE, { env: { GOONDAN_BACKOFF_BASE_MS: '100' }, args: ['-s', 'chaos'] });
  return sharedDaemon;
}
afterAll(async () => {
  (await sharedDaemon)?.cleanup();
});

async function post(daemon: Daemon, body: Record<string, unknown>, key?: string): Promise<{ status: number; body: Record<string, unknown>; replayed: boolean }> {
  const response = await daemon.api('/v1/events', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

async function eventState(daemon: Daemon, eventId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await daemon.api(`/v1/events/${eventId}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function inputsOf(daemon: Daemon, agent: string, instanceKey: string, eventId: string): number {
  const base = readFileSync(instancePaths(daemon.stateRoot, 'chaos', agent, instanceKey).baseMessages, 'utf8');
  return base.split('\n').filter((line) => line.includes(`"eventId":"${eventId}"`)).length;
}

describe('Idempotency-Key', () => {
  test('the same key twice: one turn, the same eventId, the original reply', async () => {
    const daemon = await shared();
    const first = await post(daemon, { input: 'count once', agent: 'alpha', instanceKey: 'idem' }, 'key-1');
    expect(first).toMatchObject({ status: 200, replayed: false, body: { status: 'ok', output: 'done once' } });
    const second = await post(daemon, { input: 'count once', agent: 'alpha', instanceKey: 'idem' }, 'key-1');
    expect(second).toMatchObject({ status: 200, replayed: true, body: { status: 'ok', output: 'done once', eventId: first.body.eventId, turnId: first.body.turnId } });
    expect(inputsOf(daemon, 'alpha', 'idem', String(first.body.eventId))).toBe(1);
    // The body field is the same key; a header that disagrees with it is refused.
    const third = await post(daemon, { input: 'count once', agent: 'alpha', instanceKey: 'idem', idempotencyKey: 'key-1', wait: false });
    expect(third).toMatchObject({ status: 202, replayed: true, body: { eventId: first.body.eventId } });
    const mismatch = await post(daemon, { input: 'x', idempotencyKey: 'a' }, 'b');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ error: { code: 'E_HTTP_IDEMPOTENCY_KEY_MISMATCH' } });
  });

  test('the same key for another request (input, instance key or agent) is 422 IDEMPOTENCY_KEY_REUSED and runs nothing', async () => {
    const daemon = await shared();
    const first = await post(daemon, { input: 'count first', agent: 'alpha', instanceKey: 'reuse' }, 'key-reused');
    expect(first).toMatchObject({ status: 200, body: { output: 'done first' } });
    for (const [body, differs] of [
      [{ input: 'count second', agent: 'alpha', instanceKey: 'reuse' }, 'input differ'],
      [{ input: 'count first', agent: 'alpha', instanceKey: 'someone-else' }, "instanceKey ('reuse' first, 'someone-else' now) differ"],
    ] as const) {
      const again = await post(daemon, body, 'key-reused');
      expect({ status: again.status, code: (again.body.error as { code?: string } | undefined)?.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(String((again.body.error as { message?: string }).message)).toContain(differs);
    }
    // Nothing of them ran: the instance they named was never made.
    expect((await daemon.processes()).some((row) => row.instanceKey === 'someone-else')).toBe(false);
    expect(await post(daemon, { input: 'count first', agent: 'alpha', instanceKey: 'reuse' }, 'key-reused')).toMatchObject({ status: 200, replayed: true });
  });

  test('after a daemon restart the same key answers with the original eventId and reply at once', async () => {
    const stateRoot = tempStateRoot();
    const before = await start(stateRoot);
    const first = await post(before, { input: 'count restart', agent: 'beta', instanceKey: 'idem' }, 'key-restart');
    expect(first.body).toMatchObject({ status: 'ok', output: 'done restart' });
    expect(await before.stop()).toBe(0);
    const after = await start(stateRoot);
    const again = await post(after, { input: 'count restart', agent: 'beta', instanceKey: 'idem' }, 'key-restart');
    expect(again).toMatchObject({ status: 200, replayed: true, body: { output: 'done restart', eventId: first.body.eventId } });
    expect(inputsOf(after, 'beta', 'idem', String(first.body.eventId))).toBe(1);
    // What the key was first sent with survives the restart (the ledger is rewritten on open).
    expect((await post(after, { input: 'count something else', agent: 'beta', instanceKey: 'idem' }, 'key-restart')).status).toBe(422);
  });
});

describe('GET /v1/events/{eventId}', () => {
  test('an accepted event goes from queued/running to done with its reply; unknown ids are 404', async () => {
    const daemon = await shared();
    const accepted = await post(daemon, { input: 'count later', agent: 'alpha', instanceKey: 'status', wait: false });
    expect(accepted.status).toBe(202);
    const eventId = String(accepted.body.eventId);
    const early = await eventState(daemon, eventId);
    expect(['queued', 'running', 'done']).toContain(String(early.body.status));
    await waitUntil(async () => (await eventState(daemon, eventId)).body.status === 'done', `event ${eventId} to be done`, 30_000);
    expect((await eventState(daemon, eventId)).body).toMatchObject({ eventId, status: 'done', agent: 'alpha', instanceKey: 'status', reply: { status: 'ok', output: 'done later' } });
    const unknown = await eventState(daemon, 'evt_doesnotexist');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'E_HTTP_UNKNOWN_EVENT' } } });
  });

  test('a wait=false event that kills its agent three times is dead: visible, and the crash count is reset', async () => {
    const daemon = await shared();
    const stream = await openStream(daemon, '?type=event.dead');
    const accepted = await post(daemon, { input: 'crash now', agent: 'alpha', instanceKey: 'poison', wait: false });
    const eventId = String(accepted.body.eventId);
    await waitUntil(async () => (await eventState(daemon, eventId)).body.status === 'dead', `event ${eventId} to be dead-lettered`, 90_000);
    const dead = await eventState(daemon, eventId);
    expect(dead.body).toMatchObject({ status: 'dead', reason: expect.stringContaining('crashed 3 times') });
    // The runtime event: on the live stream and in the log a reconnecting client is replayed.
    const isDead = (frames: SseFrame[]) => frames.some((f) => eventOf(f)?.eventId === eventId);
    await stream.waitFor(isDead, `event.dead for ${eventId} on the stream`);
    stream.close();
    const deadEvent = stream.frames.map(eventOf).find((e) => e?.eventId === eventId);
    expect(deadEvent).toMatchObject({ type: 'event.dead', agentName: 'alpha', instanceKey: 'poison', reason: expect.stringContaining('crashed 3 times'), traceId: expect.any(String) });
    const replayed = await openStream(daemon, '?type=event.dead', { 'last-event-id': '0' });
    await replayed.waitFor(isDead, `event.dead for ${eventId} replayed from the log`);
    replayed.close();
    const row = (await daemon.processes()).find((p) => p.agent === 'alpha' && p.instanceKey === 'poison');
    // The crashes before the dead letter are forgotten; the one that decided it still counts (as on main).
    expect(row?.crashes).toBe(1);
    // The instance serves the next event at once instead of sitting in a backoff.
    expect((await post(daemon, { input: 'count after', agent: 'alpha', instanceKey: 'poison' })).body).toMatchObject({ output: 'done after' });
  }, 120_000);
});
