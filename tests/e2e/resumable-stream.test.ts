/**
 * Issue 10, resumable stream: `GET /v1/events/stream` gives every event an `id:` (monotonic per
 * state root, also across restarts) and a `retry:`; a client reconnecting with `Last-Event-ID`
 * gets exactly what it missed from the on-disk log, none twice, then the live events. Events are
 * default `message` events carrying `{type, …}`; `type=` filters; unknown parameters are a 400.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { type Daemon, startDaemon, tempStateRoot } from './daemon-harness.ts';
import { eventOf, openStream, type SseConnection, type SseFrame } from './sse-client.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/chaos');
const daemons: Daemon[] = [];
const streams: SseConnection[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

async function start(stateRoot = tempStateRoot()): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { stateRoot, args: ['-s', 'chaos'] });
  daemons.push(daemon);
  return daemon;
}

let sharedDaemon: Promise<Daemon> | undefined;
/**
 * One daemon for the tests that do not restart it: started by the first that asks, killed after the
 * file. Each opens its streams after what came before (or filters by its own instance key).
 */
function shared(): Promise<Daemon> {
  sharedDaemon ??= startDaemon(BUNDLE, { args: ['-s', 'chaos'] });
  return sharedDaemon;
}
afterAll(async () => {
  (await sharedDaemon)?.cleanup();
});

async function stream(daemon: Daemon, query = '', headers: Record<string, string> = {}): Promise<SseConnection> {
  const connection = await openStream(daemon, query, headers);
  streams.push(connection);
  return connection;
}

async function sendAndWait(daemon: Daemon, label: string, instanceKey = 'sse'): Promise<string> {
  const { status, body } = await daemon.send({ input: `count ${label}`, agent: 'alpha', instanceKey });
  expect({ status, output: body.output }).toEqual({ status: 200, output: `done ${label}` });
  return String(body.eventId);
}

const events = (frames: SseFrame[]) => frames.flatMap((f) => (f.id === undefined ? [] : [{ id: Number(f.id), event: f.event, body: eventOf(f) ?? {} }]));
/** turnId → eventId, from the turn.started events that arrived. */
const turnsOf = (frames: SseFrame[]) => new Map(events(frames).filter((e) => e.body.type === 'turn.started').map((e) => [String(e.body.turnId), String(e.body.eventId)]));
const completedTurns = (frames: SseFrame[]) => events(frames).filter((e) => e.body.type === 'turn.completed').map((e) => String(e.body.turnId));

describe('Last-Event-ID replay', () => {
  test('disconnect, send 5 events, reconnect with Last-Event-ID: exactly those 5 turns and their events arrive, none twice, then live ones', async () => {
    const daemon = await shared();
    const first = await stream(daemon);
    expect(first.status).toBe(200);
    const before = await sendAndWait(daemon, 'before');
    await first.waitFor((frames) => completedTurns(frames).length === 1, 'the first turn.completed');
    // Plain EventSource.onmessage sees them: no `event:` names, a retry hint, `{type, …}` data.
    expect(first.frames.some((f) => f.retry !== undefined && f.retry > 0)).toBe(true);
    expect(events(first.frames).every((e) => e.event === undefined && typeof e.body.type === 'string')).toBe(true);
    const lastSeen = Math.max(...events(first.frames).map((e) => e.id));
    first.close();

    const missed: string[] = [];
    for (let i = 1; i <= 5; i++) missed.push(await sendAndWait(daemon, `missed-${i}`));

    const resumed = await stream(daemon, '', { 'last-event-id': String(lastSeen) });
    await resumed.waitFor((frames) => completedTurns(frames).length >= 5, '5 replayed turn.completed events');
    const live = await sendAndWait(daemon, 'live');
    await resumed.waitFor((frames) => completedTurns(frames).length >= 6, 'the live turn.completed after the replay');

    const received = events(resumed.frames);
    const ids = received.map((e) => e.id);
    expect(ids.every((id, i) => id > lastSeen && (i === 0 || id > (ids[i - 1] ?? 0)))).toBe(true);
    const turns = turnsOf(resumed.frames);
    expect([...turns.values()]).toEqual([...missed, live]);
    expect(completedTurns(resumed.frames)).toEqual([...turns.keys()]);
    expect([...turns.values()]).not.toContain(before);
    // Each turn's own events came along once: two counter calls, two steps.
    for (const turnId of turns.keys()) {
      const types = received.filter((e) => e.body.turnId === turnId).map((e) => String(e.body.type));
      expect(types.filter((t) => t === 'tool.called')).toHaveLength(2);
      expect(types.filter((t) => t === 'tool.completed')).toHaveLength(2);
      expect(types.filter((t) => t === 'turn.started')).toHaveLength(1);
      expect(types.filter((t) => t === 'step.completed')).toHaveLength(2);
    }
  });

  test('ids keep growing across a daemon restart on the same state root, and the log is replayed after it', async () => {
    const stateRoot = tempStateRoot();
    const first = await start(stateRoot);
    const watching = await stream(first);
    await sendAndWait(first, 'one');
    await watching.waitFor((frames) => completedTurns(frames).length === 1, 'turn.completed before the restart');
    const lastBefore = Math.max(...events(watching.frames).map((e) => e.id));
    watching.close();
    expect(await first.stop()).toBe(0);

    const second = await start(stateRoot);
    const fromZero = await stream(second, '?type=turn.completed', { 'last-event-id': '0' });
    await fromZero.waitFor((frames) => completedTurns(frames).length === 1, 'the turn of the previous daemon, replayed from disk');
    const after = await stream(second, '', { 'last-event-id': String(lastBefore) });
    await sendAndWait(second, 'two');
    await after.waitFor((frames) => completedTurns(frames).length === 1, 'the turn after the restart');
    expect(Math.min(...events(after.frames).map((e) => e.id))).toBeGreaterThan(lastBefore);
    expect(turnsOf(after.frames).size).toBe(1);
  });
});

describe('a Last-Event-ID ahead of the stream', () => {
  test('(the state root was reset, or the id is wrong) starts the stream at the present: new events arrive, none is held back', async () => {
    const daemon = await shared();
    await sendAndWait(daemon, 'before');
    const ahead = await stream(daemon, '', { 'last-event-id': '999999999' });
    await sendAndWait(daemon, 'after');
    await ahead.waitFor((frames) => completedTurns(frames).length === 1, 'the new turn on a stream resumed from an id ahead of it');
    expect(turnsOf(ahead.frames).size).toBe(1);
  });
});

describe('filters', () => {
  test('type= takes names and families; only matching events are sent', async () => {
    const daemon = await shared();
    const filtered = await stream(daemon, '?type=turn.completed,tool.*&instanceKey=filtered');
    await sendAndWait(daemon, 'f1', 'filtered');
    await sendAndWait(daemon, 'other', 'unwatched');
    await filtered.waitFor((frames) => completedTurns(frames).length === 1, 'the filtered turn.completed');
    const types = events(filtered.frames).map((e) => String(e.body.type));
    expect(new Set(types)).toEqual(new Set(['turn.completed', 'tool.called', 'tool.completed']));
    expect(events(filtered.frames).every((e) => e.body.instanceKey === 'filtered')).toBe(true);
  });

  test('an unknown filter parameter is a 400 naming it; a bad Last-Event-ID is a 400', async () => {
    const daemon = await shared();
    const unknown = await daemon.api('/v1/events/stream?agnet=alpha&type=turn.started');
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('E_HTTP_UNKNOWN_FILTER');
    expect(body.error.message).toContain('agnet');
    const badId = await daemon.api('/v1/events/stream', { headers: { 'last-event-id': 'yesterday' } });
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as { error: { code: string } }).error.code).toBe('E_HTTP_BAD_LAST_EVENT_ID');
  });
});
