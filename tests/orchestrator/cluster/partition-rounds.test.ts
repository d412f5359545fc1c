/**
 * A node's rounds (partition-rounds.ts) on a real `nats-server -js`: SIGTERM's last round hands
 * every held partition over, also when it comes while a round still runs. Before, that last round
 * was a no-op beside the running one: nothing was handed over, and the partitions' next owners
 * waited out the lease timeout. And a drain while NATS is away tries every held partition at once:
 * one after the other, each renewal waited out a KV timeout, so a SIGTERM during an outage took
 * that long per partition. The partition owner is a stand-in that records what it is asked.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { KvObserver } from '../../../orchestrator/cluster/kv-observer.ts';
import { Membership } from '../../../orchestrator/cluster/membership.ts';
import { PartitionLeases } from '../../../orchestrator/cluster/partition-leases.ts';
import { PartitionRounds } from '../../../orchestrator/cluster/partition-rounds.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const names = new ClusterNames('partition-rounds');
const logger = pino({ level: 'silent' });
const LEASE_MS = 60_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A nats-server with the members and leases buckets, node n1 live in them, and n1's leases. */
async function setUp() {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  // Reconnecting for as long as the test runs: one test kills the server.
  const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1 });
  cleanups.push(() => nc.close());
  const kvm = new Kvm(nc);
  const [members, leaseBucket] = [await kvm.create(names.membersBucket, { history: 1 }), await kvm.create(names.leasesBucket, { history: 1 })];
  const [memberView, leaseView] = [await KvObserver.start(members, logger), await KvObserver.start(leaseBucket, logger)];
  cleanups.push(() => memberView.stop(), () => leaseView.stop());
  const membership = new Membership(members, memberView, 'n1', LEASE_MS, () => 'http://n1', 'disk-1');
  await membership.heartbeat();
  await waitFor('n1 to see itself live', async () => membership.live(), (live) => live.includes('n1'));
  return { nats, membership, leases: new PartitionLeases(leaseBucket, leaseView, names, 'n1', LEASE_MS, logger) };
}

describe('partition rounds', () => {
  test('a drain that comes while a round runs waits for it, then hands every held partition over and releases its lease', async () => {
    const { membership, leases } = await setUp();

    // The first round takes partition 0, then stays in the middle of taking partition 1.
    let finishTaking = () => {};
    const taking = new Promise<void>((resolve) => (finishTaking = resolve));
    const acquired: number[] = [];
    const handedOver: number[] = [];
    const owner = {
      acquire: async (partition: number) => {
        acquired.push(partition);
        if (partition === 1) await taking;
      },
      lose: async () => {},
      handOver: async (partition: number) => void handedOver.push(partition),
    };
    const rounds = new PartitionRounds({ nodeId: 'n1', partitions: 2, leaseTimeoutMs: LEASE_MS, membership, leases, owner, eachRound: () => {}, downForMs: () => 0, logger });
    cleanups.push(() => rounds.stop());
    const started = rounds.start();
    await waitFor('the first round to be taking partition 1', () => [...acquired], (list) => list.length === 2);

    const drained = rounds.drain();
    finishTaking();
    await Promise.all([started, drained]);
    expect(handedOver.sort()).toEqual([0, 1]);
    expect([...leases.held.keys()]).toEqual([]);
    await waitFor('both leases deleted', async () => [leases.holder(0), leases.holder(1)], (holders) => holders.every((holder) => holder === undefined));
  }, 60_000);

  test('a drain while NATS is away tries every held partition side by side, not one KV timeout after another', async () => {
    const { nats, membership, leases } = await setUp();
    const handedOver: number[] = [];
    const owner = { acquire: async () => {}, lose: async () => {}, handOver: async (partition: number) => void handedOver.push(partition) };
    const rounds = new PartitionRounds({ nodeId: 'n1', partitions: 4, leaseTimeoutMs: LEASE_MS, membership, leases, owner, eachRound: () => {}, downForMs: () => 0, logger });
    cleanups.push(() => rounds.stop());
    await rounds.start();
    expect([...leases.held.keys()].sort()).toEqual([0, 1, 2, 3]);

    const renew = leases.renew.bind(leases);
    let renewing = 0;
    let most = 0;
    leases.renew = async (lease) => {
      most = Math.max(most, ++renewing);
      try {
        return await renew(lease);
      } finally {
        renewing -= 1;
      }
    };
    await nats.kill9();
    await rounds.drain();
    expect({ most, handedOver }).toEqual({ most: 4, handedOver: [] });
  }, 60_000);
});
