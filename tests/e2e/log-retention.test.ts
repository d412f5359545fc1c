/**
 * Issue 10, bounded logs through the real daemon: with `durability.retention` set small, an
 * instance's runtime-events.jsonl and the daemon's replay log rotate (one older generation kept,
 * `goondan logs` still reads both), and the inbox is compacted — while every event is answered once.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { instancePaths, workspaceDir } from '../../shared/state-paths.ts';
import { type Daemon, GOONDAN_BIN, startDaemon, waitUntil } from './daemon-harness.ts';
import { eventOf, openStream } from './sse-client.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/chaos');
const MAX_BYTES = 4096;
const daemons: Daemon[] = [];
afterEach(() => {
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '') : []);

describe('retention', () => {
  test('runtime-event logs rotate at runtimeEventsMaxBytes and the inbox stays compact; nothing unanswered is lost', async () => {
    const daemon = await startDaemon(BUNDLE, { args: ['-s', 'retained'] });
    daemons.push(daemon);
    const paths = instancePaths(daemon.stateRoot, 'retained', 'alpha', 'kept');
    let inboxMaxLines = 0;
    const replies = [];
    for (let i = 0; i < 8; i++) {
      const { body } = await daemon.send({ input: `count r${i}`, agent: 'alpha', instanceKey: 'kept' });
      replies.push(body.output);
      inboxMaxLines = Math.max(inboxMaxLines, lines(paths.inbox).length);
    }
    expect(replies).toEqual(Array.from({ length: 8 }, (_, i) => `done r${i}`));
    // Each turn's input is in the history once.
    expect(lines(paths.baseMessages).filter((l) => l.includes('"role":"user"'))).toHaveLength(8);
    // The inbox never grew past the compaction threshold (plus the lines of one turn in flight).
    expect(inboxMaxLines).toBeLessThanOrEqual(12);
    // A burst keeps events pending all along: the file is rewritten with only those, never losing one.
    const burst: string[] = [];
    for (let i = 0; i < 12; i++) burst.push(String((await daemon.send({ input: `count b${i}`, agent: 'alpha', instanceKey: 'kept', wait: false })).body.eventId));
    const stateOf = async (id: string) => ((await (await daemon.api(`/v1/events/${id}`)).json()) as { status: string }).status;
    // One instance runs its events in order: the last one done means all are (checked below).
    await waitUntil(async () => (await stateOf(burst.at(-1) ?? '')) === 'done', 'the last burst event to be done', 90_000);
    expect(await Promise.all(burst.map(stateOf))).toEqual(burst.map(() => 'done'));
    expect(lines(paths.inbox).length).toBeLessThanOrEqual(10);
    const history = lines(paths.baseMessages).filter((l) => l.includes('"role":"user"'));
    for (const id of burst) expect(history.filter((l) => l.includes(`"eventId":"${id}"`))).toHaveLength(1);

    const instanceLog = paths.runtimeEvents;
    const daemonLog = join(workspaceDir(daemon.stateRoot, 'retained'), 'runtime-events.jsonl');
    for (const file of [instanceLog, daemonLog]) {
      const older = file.replace(/\.jsonl$/, '.1.jsonl');
      expect({ file, rotated: existsSync(older) }).toEqual({ file, rotated: true });
      expect(statSync(file).size).toBeLessThanOrEqual(MAX_BYTES + 2048);
      expect(statSync(older).size).toBeLessThanOrEqual(MAX_BYTES + 2048);
    }
    // The newest turn is replayable; the replay stops where the log was cut, not with an error.
    const replay = await openStream(daemon, '?type=turn.completed', { 'last-event-id': '0' });
    await replay.waitFor((frames) => frames.filter((f) => eventOf(f)?.type === 'turn.completed').length >= 1, 'replayed turn.completed events');
    replay.close();
    const replayedTurns = replay.frames.filter((f) => eventOf(f)?.type === 'turn.completed').length;
    expect(replayedTurns).toBeLessThan(50);
    // `goondan logs` reads both generations of the instance log.
    const logs = Bun.spawnSync([GOONDAN_BIN, 'logs', '--json', '--lines', '1000', '--instance', 'kept', '--state-root', daemon.stateRoot]);
    const printed = new TextDecoder().decode(logs.stdout).split('\n').filter((l) => l.trim() !== '');
    expect(printed.length).toBe(lines(instanceLog).length + lines(instanceLog.replace(/\.jsonl$/, '.1.jsonl')).length);
    expect(await daemon.stop()).toBe(0);
  });
});
