/**
 * A torn last line (a crash, a power loss under fsync batch|never, a full disk) must not swallow the
 * next appended record: the writer cuts it when it opens the file for appending (line-boundary.ts).
 */
import { describe, expect, test } from 'bun:test';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { Delivery } from '../../orchestrator/delivery/delivery.ts';
import { DurableInbox } from '../../orchestrator/delivery/durable-inbox.ts';
import { RuntimeEventJournal } from '../../orchestrator/daemon/runtime-event-journal.ts';
import { cutTornTail, type TornTail, warnTornTail } from '../../shared/durability/line-boundary.ts';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-torn-');

const TORN = '{"op":"put","agent":"a","inst';
const event = (input: string) => makeEvent('api.input', { kind: 'api', name: 'test' }, { input });

describe('cutTornTail', () => {
  test('a file ending mid-line loses everything after its last newline, and says how many bytes', () => {
    const file = join(tempDir(), 'log.jsonl');
    writeFileSync(file, `{"n":1}\n{"n":2}\n${TORN}`);
    const seen: TornTail[] = [];
    expect(cutTornTail(file, (tail) => seen.push(tail))).toBe(Buffer.byteLength(TORN));
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(seen).toEqual([{ file, droppedBytes: Buffer.byteLength(TORN) }]);
  });

  test('a file with no newline at all and a torn line is emptied', () => {
    const file = join(tempDir(), 'log.jsonl');
    writeFileSync(file, TORN);
    expect(cutTornTail(file)).toBe(Buffer.byteLength(TORN));
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  test('a torn line longer than one read step is found and cut whole', () => {
    const file = join(tempDir(), 'log.jsonl');
    const long = `{"text":"${'x'.repeat(200_000)}`;
    writeFileSync(file, `{"n":1}\n${long}`);
    expect(cutTornTail(file)).toBe(long.length);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n');
  });

  test('a file ending with a newline, an empty file and a missing file are left as they are', () => {
    const dir = tempDir();
    const whole = join(dir, 'whole.jsonl');
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(whole, '{"n":1}\n');
    writeFileSync(empty, '');
    const seen: TornTail[] = [];
    const report = (tail: TornTail) => seen.push(tail);
    expect(cutTornTail(whole, report)).toBe(0);
    expect(cutTornTail(empty, report)).toBe(0);
    expect(cutTornTail(join(dir, 'missing.jsonl'), report)).toBe(0);
    expect(readFileSync(whole, 'utf8')).toBe('{"n":1}\n');
    expect(readFileSync(empty, 'utf8')).toBe('');
    expect(existsSync(join(dir, 'missing.jsonl'))).toBe(false);
    expect(seen).toEqual([]);
  });

  test('a whole record that only lost its newline is kept (readers take it) and terminated', () => {
    const file = join(tempDir(), 'log.jsonl');
    writeFileSync(file, '{"n":1}\n{"n":2}');
    const seen: TornTail[] = [];
    expect(cutTornTail(file, (tail) => seen.push(tail))).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(seen).toEqual([{ file, droppedBytes: 0 }]);
  });

  test('the warning names the file and the bytes dropped', () => {
    const lines: Array<{ obj: object; msg?: string }> = [];
    warnTornTail({ warn: (obj, msg) => lines.push({ obj, ...(msg !== undefined ? { msg } : {}) }) })({ file: '/x/inbox.jsonl', droppedBytes: 29 });
    expect(lines).toEqual([{ obj: { code: 'W_JSONL_TORN_TAIL_CUT', file: '/x/inbox.jsonl', droppedBytes: 29 }, msg: expect.stringContaining('cut 29 bytes of a torn last line off /x/inbox.jsonl') }]);
  });
});

describe('the durable inbox after a torn write', () => {
  test('an event appended after a torn last line is read back (the daemon’s restart finds it pending)', () => {
    const path = join(tempDir(), 'inbox.jsonl');
    const before = DurableInbox.open(path, 'alpha', 'k1');
    const settled = event('settled');
    before.append(settled);
    before.ack(settled.id);
    before.close();
    appendFileSync(path, TORN);

    const seen: TornTail[] = [];
    const inbox = DurableInbox.open(path, 'alpha', 'k1', undefined, undefined, undefined, (tail) => seen.push(tail));
    const next = event('after the tear');
    inbox.append(next);
    inbox.commit();
    // The daemon is killed here: nothing but the file remains.
    expect(DurableInbox.open(path, 'alpha', 'k1').unacked().map((e) => e.id)).toEqual([next.id]);
    expect(seen).toEqual([{ file: path, droppedBytes: Buffer.byteLength(TORN) }]);
  });

  test('reading an inbox (the CLI, a daemon start) leaves a torn last line alone: only the writer cuts it', () => {
    const path = join(tempDir(), 'inbox.jsonl');
    writeFileSync(path, TORN);
    expect(DurableInbox.peekIdentity(path)).toBeUndefined();
    expect(DurableInbox.recordedIdentity(path)).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe(TORN);
  });

  test('Delivery logs the cut as a warning naming the inbox file and the bytes dropped', () => {
    const stateRoot = tempDir();
    const path = instancePaths(stateRoot, 'ws', 'alpha', 'k1').inbox;
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, TORN);
    const logged: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
    const delivery = new Delivery({ stateRoot, workspaceId: 'ws', logger });
    const inbox = delivery.inbox({ agent: 'alpha', instanceKey: 'k1' });
    inbox.append(event('after the tear'));
    inbox.commit();
    inbox.close();
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, code: 'W_JSONL_TORN_TAIL_CUT', file: path, droppedBytes: Buffer.byteLength(TORN) }));
    expect(DurableInbox.open(path, 'alpha', 'k1').size).toBe(1);
  });
});

describe('the daemon’s runtime-event log after a torn write', () => {
  test('an event logged after a torn last line is replayed', () => {
    const dir = tempDir();
    const limits = { maxBytes: 1_000_000, maxAgeMs: 3_600_000 };
    const streamed = (n: number): RuntimeEvent => ({ type: 'turn.started', turnId: `turn-${n}`, eventId: `evt_${n}`, timestamp: new Date(0).toISOString(), agentName: 'a', instanceKey: 'k', traceId: 't', spanId: 's' });
    const first = new RuntimeEventJournal(dir, limits);
    first.append(streamed(1));
    first.close();
    appendFileSync(join(dir, 'runtime-events.jsonl'), '{"id":2,"event":{"ty');
    const seen: TornTail[] = [];
    const second = new RuntimeEventJournal(dir, limits, (tail) => seen.push(tail));
    const id = second.append(streamed(2));
    second.close();
    expect(new RuntimeEventJournal(dir, limits).since(0).map((logged) => logged.id)).toEqual([1, id]);
    expect(seen).toHaveLength(1);
  });
});
