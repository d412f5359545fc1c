/**
 * An `Idempotency-Key` claimed for the cluster (idempotency-claims.ts) names the accepting node's
 * disk as well as its id: a node back on the same state directory under another `--node-id` (the
 * default changes with every start) takes the claims of its earlier self as its own, and a retry
 * through another node is answered by it — before, it asked the old id, which nobody answers, and
 * got 503 until the claim expired (24 h). A claim of another disk stays another node's. A real
 * `nats-server -js`.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { IdempotencyClaims, type KeyClaim } from '../../../orchestrator/cluster/idempotency-claims.ts';
import { EventLedger } from '../../../orchestrator/delivery/event-ledger.ts';
import { FsyncPolicy } from '../../../shared/durability/fsync-policy.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';

const names = new ClusterNames('idempotency-claims');
const logger = pino({ level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'goondan-idempotency-claims-'));
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('idempotency claims', () => {
  test('are the node’s own under another id on the same disk, answered through the disk, and another disk’s claim stays another node’s', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const nc = await connect({ servers: nats.url });
    cleanups.push(() => nc.close());
    const kv = await new Kvm(nc).create(names.idempotencyBucket, { history: 1 });
    const subjects = { node: (id: string) => names.nodeOutcomes(id), disk: (disk: string) => names.diskOutcomes(disk) };
    const claims = (node: string, disk: string) => new IdempotencyClaims(kv, nc, subjects, node, disk, logger);
    const candidate = (node: string): KeyClaim => ({ eventId: 'evt_first', node, agent: 'alpha', instanceKey: 'k1', traceId: 'a'.repeat(32) });

    const first = await claims('host-1', 'disk-1').claim('key-1', candidate('host-1'));
    expect(first).toMatchObject({ kind: 'ours', claim: { node: 'host-1', disk: 'disk-1' } });
    // Back on disk-1 as host-2: its own (its ledger holds the event).
    const again = claims('host-2', 'disk-1');
    expect(await again.claim('key-1', candidate('host-2'))).toMatchObject({ kind: 'ours', claim: { eventId: 'evt_first', node: 'host-1' } });
    // Another disk: another node's claim, as before.
    const other = claims('host-3', 'disk-2');
    const theirs = await other.claim('key-1', candidate('host-3'));
    if (theirs.kind !== 'theirs') throw new Error('a claim of another disk was taken as this node’s own');

    // host-1 is gone for good; host-2, on its disk, answers for the event.
    await expect(other.outcomeFrom(theirs.claim, 0)).rejects.toThrow();
    const ledger = new EventLedger(join(dir, 'events.jsonl'), new FsyncPolicy('never'));
    ledger.accepted({ eventId: 'evt_first', agent: 'alpha', instanceKey: 'k1', traceId: 'a'.repeat(32), idempotencyKey: 'key-1' });
    ledger.done('evt_first', { status: 'ok', output: 'the answer' });
    const served = again.serve(ledger);
    cleanups.push(() => served.forEach((subscription) => subscription.unsubscribe()));
    expect(await other.outcomeFrom(theirs.claim, 0)).toMatchObject({ known: true, outcome: { status: 'ok', output: 'the answer' } });
  }, 60_000);
});
