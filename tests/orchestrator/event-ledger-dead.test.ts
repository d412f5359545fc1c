/**
 * An event given up (dead-lettered) keeps the error it was given up with in the event ledger: a
 * retry under its key and GET /v1/events/{id} tell that error — its own code, category and
 * suggestion, not a runtime code standing in for it — also after a restart and a compaction, and
 * a ledger written before whole errors were kept still reads.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLedger } from '../../orchestrator/delivery/event-ledger.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { errorShape } from '../../shared/errors/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-event-ledger-dead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (eventId: string) => ({ eventId, agent: 'alpha', instanceKey: 'k1', traceId: 'b'.repeat(32), idempotencyKey: `key-${eventId}` });
// What an agent that cannot start reports (a tool module that throws at import).
const startFailure = errorShape('E_MODULE_LOAD_FAILED', 'user', "tool 'probe' failed to load: boom", { suggestion: 'fix the module and run goondan restart' });

describe('a given-up event', () => {
  test('answers with the error it was given up with, across a restart', async () => {
    const path = join(dir, 'whole.jsonl');
    const ledger = new EventLedger(path, new FsyncPolicy('never'));
    ledger.accepted(record('evt_1'));
    ledger.dead('evt_1', 'the agent cannot start', startFailure);
    const expected = { code: 'E_MODULE_LOAD_FAILED', category: 'user', suggestion: 'fix the module and run goondan restart', message: 'event evt_1 was given up: the agent cannot start' };
    expect((await ledger.outcome('evt_1')).error).toMatchObject(expected);
    ledger.close();
    const reopened = new EventLedger(path, new FsyncPolicy('never'));
    expect(reopened.get('evt_1')).toMatchObject({ state: 'dead', code: 'E_MODULE_LOAD_FAILED' });
    expect((await reopened.outcome('evt_1')).error).toMatchObject(expected);
    reopened.close();
  });

  test('a dead line of an older ledger (its code alone) still reads', async () => {
    const path = join(dir, 'older.jsonl');
    const ledger = new EventLedger(path, new FsyncPolicy('never'));
    ledger.accepted(record('evt_2'));
    ledger.close();
    appendFileSync(path, `${JSON.stringify({ op: 'dead', eventId: 'evt_2', reason: 'deleted', at: new Date().toISOString(), code: 'INSTANCE_DELETED' })}\n`);
    const reopened = new EventLedger(path, new FsyncPolicy('never'));
    expect((await reopened.outcome('evt_2')).error).toMatchObject({ code: 'INSTANCE_DELETED', message: 'event evt_2 was given up: deleted' });
    reopened.close();
  });
});
