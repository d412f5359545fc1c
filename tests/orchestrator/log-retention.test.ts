/**
 * Issue 10, bounded logs (`Swarm.spec.policy.durability.retention`): runtime-event logs rotate by
 * size and by age, keeping the newest generation whole; the daemon's replay log keeps its ids
 * growing across reopen and rotation; an inbox that always has something pending is still
 * compacted, and compaction never loses an unacked event.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeEventJournal } from '../../orchestrator/daemon/runtime-event-journal.ts';
import { DurableInbox } from '../../orchestrator/delivery/durable-inbox.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { RotatingLog } from '../../shared/durability/rotating-log.ts';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-retention-');

const HOUR = 3_600_000;
const ROOMY = { maxBytes: 1 << 30, maxAgeMs: 1000 * HOUR };

function runtimeEvent(n: number): RuntimeEvent {
  return { type: 'turn.started', turnId: `turn-${n}`, eventId: `evt_${n}`, timestamp: new Date(0).toISOString(), agentName: 'a', instanceKey: 'k', traceId: 't', spanId: 's' };
}

const lineOf = (n: number) => `${JSON.stringify({ n })}\n`;
const numbers = (log: RotatingLog) => log.lines().map((l) => (JSON.parse(l) as { n: number }).n);

describe('runtime-event logs rotate', () => {
  test('by size: past maxBytes the file becomes .1 and the older generation is dropped; the newest maxBytes stay readable', () => {
    const path = join(tempDir(), 'runtime-events.jsonl');
    const maxBytes = 1_000;
    const log = new RotatingLog(path, { maxBytes, maxAgeMs: ROOMY.maxAgeMs });
    for (let n = 1; n <= 1_000; n++) log.append(lineOf(n));
    const kept = numbers(log);
    expect(kept.at(-1)).toBe(1_000);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 1_001 - kept.length + i));
    expect(kept.length * Buffer.byteLength(lineOf(1_000))).toBeGreaterThanOrEqual(maxBytes);
    expect(statSync(path).size + statSync(log.previous).size).toBeLessThanOrEqual(2 * maxBytes + 2 * Buffer.byteLength(lineOf(1_000)));
  });

  test('by age: a generation older than maxAge rotates on the next append; one whose newest record is older than maxAge is dropped', () => {
    const path = join(tempDir(), 'runtime-events.jsonl');
    let now = Date.now();
    const log = new RotatingLog(path, { maxBytes: ROOMY.maxBytes, maxAgeMs: 24 * HOUR }, () => now);
    log.append(lineOf(1));
    now += 20 * HOUR;
    log.append(lineOf(2));
    now += 10 * HOUR;
    log.append(lineOf(3));
    // [1, 2] began 30 h ago: rotated; its newest record is 10 h old, so it is still kept.
    expect(numbers(log)).toEqual([1, 2, 3]);
    expect(readFileSync(path, 'utf8')).toBe(lineOf(3));
    now += 30 * HOUR;
    log.append(lineOf(4));
    // [3] rotated, and at 30 h old nothing of it is worth keeping.
    expect(numbers(log)).toEqual([4]);
    expect(existsSync(log.previous)).toBe(false);
    log.close();
  });

  test('the daemon replay log: ids grow across a reopen and a rotation; since(id) returns only newer events', async () => {
    const dir = tempDir();
    const first = new RuntimeEventJournal(dir, ROOMY);
    expect([1, 2, 3].map((n) => first.append(runtimeEvent(n)))).toEqual([1, 2, 3]);
    first.close();
    const small = new RuntimeEventJournal(dir, { maxBytes: 4_096, maxAgeMs: ROOMY.maxAgeMs });
    // A few events per loop turn, as turns publish them: each loop turn's events are one write.
    for (let n = 4; n <= 200; n++) {
      small.append(runtimeEvent(n));
      if (n % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // Not yet written (the same loop turn) and still replayed.
    small.append(runtimeEvent(201));
    expect(small.since(199).map((e) => e.id)).toEqual([200, 201]);
    const kept = small.since(0).map((e) => e.id);
    expect(kept.at(-1)).toBe(201);
    expect(kept.length).toBeLessThan(200);
    expect(small.since(198).map((e) => e.id)).toEqual([199, 200, 201]);
    small.close();
    expect(new RuntimeEventJournal(dir, ROOMY).append(runtimeEvent(202))).toBe(202);
  });
});

describe('appendSoon: one write per loop turn', () => {
  test('lines wait for the end of the loop turn, in order; a reader sees them at once', async () => {
    const path = join(tempDir(), 'runtime-events.jsonl');
    const log = new RotatingLog(path, ROOMY);
    const failed: unknown[] = [];
    for (const n of [1, 2, 3]) log.appendSoon(lineOf(n), (error) => failed.push(error));
    expect(existsSync(path)).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(path, 'utf8')).toBe(lineOf(1) + lineOf(2) + lineOf(3));
    log.appendSoon(lineOf(4), (error) => failed.push(error));
    expect(numbers(log)).toEqual([1, 2, 3, 4]);
    log.close();
    expect(failed).toEqual([]);
  });

  test('a process that exits in the same loop turn still writes its lines', () => {
    const path = join(tempDir(), 'runtime-events.jsonl');
    const script = `import { RotatingLog } from ${JSON.stringify(join(import.meta.dir, '../../shared/durability/rotating-log.ts'))};
      const log = new RotatingLog(${JSON.stringify(path)}, { maxBytes: 1 << 30, maxAgeMs: 3.6e9 });
      log.appendSoon('{"n":1}\\n', () => {});
      process.exit(3);`;
    const child = Bun.spawnSync([process.execPath, '-e', script], { stderr: 'pipe' });
    expect(child.exitCode).toBe(3);
    expect(readFileSync(path, 'utf8')).toBe(lineOf(1));
  });
});

describe('inbox compaction', () => {
  const event = (input: string) => makeEvent('api.input', { kind: 'api', name: 'test' }, { input });
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  test('an inbox that always has an event pending is rewritten with only its unacked events, in order', async () => {
    const path = join(tempDir(), 'inbox.jsonl');
    const inbox = DurableInbox.open(path, 'alpha', 'k1', undefined, new FsyncPolicy('always'), 20);
    const held = event('held');
    inbox.append(held);
    let maxLines = 0;
    for (let i = 0; i < 200; i++) {
      const passing = event(`e${i}`);
      inbox.append(passing);
      inbox.ack(passing.id);
      await flush();
      maxLines = Math.max(maxLines, readFileSync(path, 'utf8').split('\n').filter(Boolean).length);
    }
    const last = event('last');
    inbox.append(last);
    expect(maxLines).toBeLessThanOrEqual(21);
    inbox.close();
    const reopened = DurableInbox.open(path, 'alpha', 'k1');
    expect(reopened.unacked().map((e) => e.input)).toEqual(['held', 'last']);
    expect(DurableInbox.peekIdentity(path)).toEqual({ agent: 'alpha', instanceKey: 'k1', pending: 2 });
    expect(existsSync(`${path}.compacting`)).toBe(false);
  });

  test('an inbox with many events pending is not rewritten over and over: the file only compacts once most lines are settled', async () => {
    const path = join(tempDir(), 'inbox.jsonl');
    const inbox = DurableInbox.open(path, 'alpha', 'k1', undefined, new FsyncPolicy('never'), 20);
    const pending = Array.from({ length: 30 }, (_, i) => event(`p${i}`));
    for (const e of pending) inbox.append(e);
    inbox.ack(pending[0]?.id ?? '');
    await flush();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(31);
    inbox.close();
    expect(DurableInbox.open(path, 'alpha', 'k1').unacked()).toHaveLength(29);
  });
});
