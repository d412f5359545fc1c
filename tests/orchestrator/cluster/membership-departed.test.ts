/**
 * A node that stops gracefully (membership.ts): its record stays in the members bucket, marked
 * departed — out of the partition assignment, still known to the event lookup (its disk holds the
 * records of the events it accepted) — until it is back under the same id. Before, its record was
 * deleted and every node answered 404 for its events. One back on the same disk under another id
 * (the default id changes with every start) forgets it: it answers for those events itself. A real
 * `nats-server -js`.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { KvObserver } from '../../../orchestrator/cluster/kv-observer.ts';
import { Membership } from '../../../orchestrator/cluster/membership.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const names = new ClusterNames('departed-members');
const logger = pino({ level: 'silent' });
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A nats-server with a members bucket; `member(node, disk)` is a node's Membership in it, with a lease of `leaseMs`. */
async function membersBucket(leaseMs: number) {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const kv = await new Kvm(nc).create(names.membersBucket, { history: 1 });
  return async (node: string, disk = `disk-${node}`) => {
    const view = await KvObserver.start(kv, logger);
    cleanups.push(() => view.stop());
    return new Membership(kv, view, node, leaseMs, () => `http://${node}`, disk);
  };
}

describe('membership: a node stopped gracefully', () => {
  test('stays known, marked departed and not live, until it heartbeats again under its id', async () => {
    const member = await membersBucket(60_000);
    const [na, nb] = [await member('na'), await member('nb')];
    await na.heartbeat();
    await nb.heartbeat();
    await waitFor('na to see nb live', async () => na.live(), (live) => live.includes('nb'));

    nb.draining = true;
    await nb.leave();
    await waitFor('na to see nb departed', async () => na.departed(), (departed) => departed.includes('nb'));
    expect({ live: na.live(), known: na.known(), departed: na.departed() }).toEqual({ live: ['na'], known: ['na', 'nb'], departed: ['nb'] });

    // Back under its id (a new process): its first heartbeat ends the departure.
    const back = await member('nb');
    await back.heartbeat();
    await waitFor('na to see nb back', async () => na.departed(), (departed) => departed.length === 0);
    expect({ live: na.live(), known: na.known() }).toEqual({ live: ['na', 'nb'], known: ['na', 'nb'] });
  }, 60_000);

  test('is forgotten by the node back on its disk under another id, and only by that one', async () => {
    const member = await membersBucket(60_000);
    const [first, other] = [await member('host-1', 'd1'), await member('host-2', 'd2')];
    for (const node of [first, other]) {
      node.draining = true;
      await node.leave();
    }
    const again = await member('host-3', 'd1');
    await waitFor('host-3 to see both departed', async () => again.departed(), (departed) => departed.length === 2);
    await again.heartbeat();
    await waitFor('host-1 forgotten', async () => again.known(), (known) => !known.includes('host-1'));
    expect({ known: again.known(), departed: again.departed() }).toEqual({ known: ['host-2', 'host-3'], departed: ['host-2'] });
  }, 60_000);
});

describe('membership: a node killed (no heartbeat any more, not departed)', () => {
  test('is forgotten by the node back on its disk under another id once not heard from for a lease timeout, and not before; one on another disk stays', async () => {
    const member = await membersBucket(1_500);
    // Two nodes beat once and are killed: their records stay as they were, not departed.
    for (const [node, disk] of [['host-1', 'd1'], ['host-2', 'd2']] as const) await (await member(node, disk)).heartbeat();
    const again = await member('host-3', 'd1');
    await waitFor('host-3 to see both records', async () => again.known(), (known) => known.includes('host-1') && known.includes('host-2'));
    // Just seen: host-1 may still be alive, beside it on its disk.
    await again.heartbeat();
    expect(again.known()).toEqual(['host-1', 'host-2', 'host-3']);
    const beatUntilForgotten = async () => {
      await again.heartbeat();
      return again.known();
    };
    expect(await waitFor('host-1 forgotten after a lease timeout', beatUntilForgotten, (known) => !known.includes('host-1'), 20_000)).toEqual(['host-2', 'host-3']);
    expect(again.departed()).toEqual([]);
  }, 60_000);
});
