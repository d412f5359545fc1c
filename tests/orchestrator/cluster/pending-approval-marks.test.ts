/**
 * Which instances wait for a tool approval, per partition (pending-approval-marks.ts): what a node
 * taking a partition over restores at once, so that it holds their approvals from the takeover on.
 * Another node sees a mark through its own watch; a mark already as wanted is not written again; a
 * cleared mark no longer names its instance. A real `nats-server -js`.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { KvObserver } from '../../../orchestrator/cluster/kv-observer.ts';
import { PendingApprovalMarks } from '../../../orchestrator/cluster/pending-approval-marks.ts';
import { waitFor } from '../../helpers/wait-for.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';

const names = new ClusterNames('pending-marks');
const logger = pino({ level: 'silent' });
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two nodes' views of one marks bucket: `here` writes, `there` only watches. */
async function twoNodes(): Promise<{ here: PendingApprovalMarks; there: PendingApprovalMarks; revision(key: string): Promise<number | undefined> }> {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const kv = await new Kvm(nc).create(names.pendingApprovalsBucket, { history: 1 });
  const views = await Promise.all([KvObserver.start(kv, logger), KvObserver.start(kv, logger)]);
  for (const view of views) cleanups.push(() => view.stop());
  return {
    here: new PendingApprovalMarks(views[0], names),
    there: new PendingApprovalMarks(views[1], names),
    revision: async (key) => (await kv.get(key))?.revision,
  };
}

describe('pending approval marks', () => {
  test('name the instances of a partition that wait for a decision, to every node, until cleared; one already as wanted is not written again', async () => {
    const { here, there, revision } = await twoNodes();
    const waiting = { agent: 'writer', instanceKey: 'w1' };
    const other = { agent: 'writer', instanceKey: 'w2' };
    await here.set(4, waiting, true);
    await here.set(5, other, true);
    // Never asked: nothing written.
    await here.set(4, { agent: 'writer', instanceKey: 'w3' }, false);
    expect(here.of(4)).toEqual([waiting]);
    await waitFor('the other node to see both marks', async () => [...there.of(4), ...there.of(5)], (marked) => marked.length === 2);
    expect(there.of(4)).toEqual([waiting]);
    expect(there.of(5)).toEqual([other]);
    expect(await revision(names.stateKey(4, { agent: 'writer', instanceKey: 'w3' }))).toBeUndefined();

    const key = names.stateKey(4, waiting);
    const first = await revision(key);
    await here.set(4, waiting, true);
    expect(await revision(key)).toBe(first);

    // Decided, and a new approval asked at once: the writes land in the order they were asked for.
    await Promise.all([here.set(4, waiting, false), here.set(4, waiting, true)]);
    expect(here.of(4)).toEqual([waiting]);
    await here.set(4, waiting, false);
    expect(here.of(4)).toEqual([]);
    await waitFor('the other node to see the mark cleared', async () => there.of(4), (marked) => marked.length === 0);
  });
});
