/**
 * Issue 10, the daemon's runtime-event log behind `Last-Event-ID`: ids continue across a reopen
 * (a restart on the same state root), `since` returns only newer events, and past its size bound
 * the log rotates once, keeping at least that many bytes of the newest events for replay.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeEventJournal } from '../../orchestrator/daemon/runtime-event-journal.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';

function event(n: number): RuntimeEvent {
  return { type: 'turn.started', turnId: `turn-${n}`, eventId: `evt_${n}`, timestamp: new Date(0).toISOString(), agentName: 'a', instanceKey: 'k', traceId: 't', spanId: 's' };
}

describe('runtime-event log', () => {
  test('ids are monotonic and continue after a reopen; since(id) returns only newer events, oldest first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-rel-'));
    const first = new RuntimeEventJournal(dir);
    expect([1, 2, 3].map((n) => first.append(event(n)))).toEqual([1, 2, 3]);
    first.close();
    const second = new RuntimeEventJournal(dir);
    expect(second.append(event(4))).toBe(4);
    expect(second.since(2).map((e) => e.id)).toEqual([3, 4]);
    expect(second.since(4)).toEqual([]);
    second.close();
  });

  test('past maxBytes the log rotates: the newest maxBytes of events stay replayable, the disk use stays bounded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-rel-'));
    const maxBytes = 4_096;
    const journal = new RuntimeEventJournal(dir, maxBytes);
    for (let n = 1; n <= 500; n++) journal.append(event(n));
    const kept = journal.since(0).map((e) => e.id);
    const bytesPerEvent = Buffer.byteLength(`${JSON.stringify({ id: 500, event: event(500) })}\n`);
    expect(kept.at(-1)).toBe(500);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 501 - kept.length + i));
    expect(kept.length * bytesPerEvent).toBeGreaterThanOrEqual(maxBytes);
    expect(kept.length).toBeLessThan(500);
    const onDisk = statSync(join(dir, 'runtime-events.jsonl')).size + statSync(join(dir, 'runtime-events.1.jsonl')).size;
    expect(onDisk).toBeLessThanOrEqual(2 * maxBytes + 2 * bytesPerEvent);
    journal.close();
    // A reopen after rotation still continues the ids.
    const reopened = new RuntimeEventJournal(dir, maxBytes);
    expect(reopened.append(event(501))).toBe(501);
    reopened.close();
  });
});
