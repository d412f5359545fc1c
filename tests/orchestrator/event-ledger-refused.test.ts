/**
 * The event ledger (orchestrator/delivery/event-ledger.ts) and an event the cluster refused (503):
 * it was not accepted, so it is no longer tracked; whoever waited for its outcome learns of the
 * refusal at once; a retry under its idempotency key finds its id (to go out under it again), also
 * after the daemon restarted and after the file was compacted.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLedger } from '../../orchestrator/delivery/event-ledger.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { runtimeError } from '../../shared/errors/index.ts';
import { failureOutcome } from '../../shared/ipc/reply-events.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-event-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = failureOutcome(runtimeError('CLUSTER_UNAVAILABLE', 'the cluster did not accept the event: timeout'));
const record = (eventId: string, idempotencyKey?: string) => ({ eventId, agent: 'alpha', instanceKey: 'k1', traceId: 'a'.repeat(32), ...(idempotencyKey ? { idempotencyKey } : {}) });

describe('an event the cluster refused', () => {
  test('is not tracked, its waiters get the refusal, and its key leads a retry to its id, across a restart', async () => {
    const path = join(dir, 'restart.jsonl');
    const ledger = new EventLedger(path, new FsyncPolicy('never'));
    ledger.accepted(record('evt_1', 'key-1'));
    // A retry under the key while the first attempt still waits for JetStream waits for its outcome.
    const waiting = ledger.outcome('evt_1');
    ledger.refused('evt_1', refusal);
    expect(await waiting).toEqual(refusal);
    expect(ledger.get('evt_1')).toBeUndefined();
    expect(ledger.findByKey('key-1')).toBeUndefined();
    expect(ledger.refusedUnder('key-1')).toMatchObject({ eventId: 'evt_1', agent: 'alpha', instanceKey: 'k1', traceId: 'a'.repeat(32) });
    ledger.close();

    const reopened = new EventLedger(path, new FsyncPolicy('never'));
    expect(reopened.get('evt_1')).toBeUndefined();
    expect(reopened.refusedUnder('key-1')?.eventId).toBe('evt_1');
    // The retry is accepted under the same id: tracked again, the refusal forgotten.
    reopened.accepted(record('evt_1', 'key-1'));
    expect(reopened.findByKey('key-1')?.state).toBe('queued');
    expect(reopened.refusedUnder('key-1')).toBeUndefined();
    reopened.close();
  });

  test('a refusal after the event ran (or without a key) changes nothing it should not', () => {
    const ledger = new EventLedger(join(dir, 'late.jsonl'), new FsyncPolicy('never'));
    ledger.accepted(record('evt_2', 'key-2'));
    ledger.running('evt_2');
    ledger.refused('evt_2', refusal);
    expect(ledger.get('evt_2')?.state).toBe('running');
    ledger.accepted(record('evt_3'));
    ledger.refused('evt_3', refusal);
    expect(ledger.get('evt_3')).toBeUndefined();
    ledger.close();
  });

  test('compaction keeps a refusal inside the window and drops one past it', () => {
    const path = join(dir, 'compact.jsonl');
    let now = Date.parse('2026-11-28T00:00:00.000Z');
    const ledger = new EventLedger(path, new FsyncPolicy('never'), () => now);
    ledger.accepted(record('evt_old', 'key-old'));
    ledger.refused('evt_old', refusal);
    now += 23 * 3600_000;
    ledger.accepted(record('evt_new', 'key-new'));
    ledger.refused('evt_new', refusal);
    ledger.close();
    // A torn line makes the next open read the file; opening compacts it.
    appendFileSync(path, '{"op":"acc');
    now += 2 * 3600_000;
    const reopened = new EventLedger(path, new FsyncPolicy('never'), () => now);
    expect(reopened.refusedUnder('key-old')).toBeUndefined();
    expect(reopened.refusedUnder('key-new')?.eventId).toBe('evt_new');
    expect(readFileSync(path, 'utf8')).not.toContain('evt_old');
    reopened.close();
  });
});
