/**
 * A compare-and-set on JetStream KV whose answer is lost (a NATS restart mid-request, a timeout)
 * may still have landed. The next write then meets "wrong last sequence", which used to mean
 * "another node wrote it": a node gave up a partition it still owned and SIGKILLed its running
 * turns (seen in the NATS-restart e2e's logs). Now a lease that still names this node and epoch,
 * or a state snapshot whose bytes are one of our unanswered writes, is recognised as ours; another
 * node's write is still refused. A real `nats-server -js`; the only stand-in is the lost answer.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type KV, Kvm } from '@nats-io/kv';
import { connect, TimeoutError } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { KvObserver } from '../../../orchestrator/cluster/kv-observer.ts';
import { PartitionLeases } from '../../../orchestrator/cluster/partition-leases.ts';
import { StateFencedError, StateReplica } from '../../../orchestrator/cluster/state-replica.ts';
import { instancePaths } from '../../../shared/state-paths.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import { tempStateRoot } from '../../agent-process/helpers/engine-fixture.ts';

const names = new ClusterNames('lost-answers');
const silent = pino({ level: 'silent' });
const id = { agent: 'alpha', instanceKey: 'k0' };
const PARTITION = 5;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function bucket(name: string): Promise<KV> {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  return new Kvm(nc).create(name, { history: 1 });
}

/** The bucket, except that the next `update` lands and then its answer is lost. */
function losingNextAnswer(kv: KV): { kv: KV; loseNext(): void } {
  let lose = false;
  const update: KV['update'] = async (key, value, revision, timeout) => {
    const landed = await kv.update(key, value, revision, timeout);
    if (!lose) return landed;
    lose = false;
    throw new TimeoutError();
  };
  return { kv: Object.assign(Object.create(kv) as KV, { update }), loseNext: () => (lose = true) };
}

describe('a KV write whose answer was lost', () => {
  test('a lease renewal that landed unanswered leaves the lease held, not lost', async () => {
    const kv = await bucket(names.leasesBucket);
    const { kv: flaky, loseNext } = losingNextAnswer(kv);
    const observer = await KvObserver.start(flaky, silent);
    cleanups.push(() => observer.stop());
    const leases = new PartitionLeases(flaky, observer, names, 'n1', 3_000, silent);
    const lease = await leases.claim(PARTITION);
    if (!lease) throw new Error('the free lease was not claimed');

    loseNext();
    expect(await leases.renew(lease)).toBe('unreachable');
    expect(await leases.renew(lease)).toBe('renewed');
    expect(leases.held.has(PARTITION)).toBe(true);

    // A takeover by another node (a new epoch) is still a loss.
    await kv.put(names.leaseKey(PARTITION), new TextEncoder().encode(JSON.stringify({ node: 'n2', epoch: lease.epoch + 1 })));
    expect(await leases.renew(lease)).toBe('lost');
  });

  test('a state snapshot that landed unanswered is written on from, and another node’s write still fences', async () => {
    const kv = await bucket(names.stateBucket);
    const { kv: flaky, loseNext } = losingNextAnswer(kv);
    const stateRoot = tempStateRoot();
    const replica = new StateReplica(flaky, names, stateRoot, 'ws', silent);
    const paths = instancePaths(stateRoot, 'ws', id.agent, id.instanceKey);
    mkdirSync(paths.messagesDir, { recursive: true });
    const turn = (n: number) => writeFileSync(paths.baseMessages, `${JSON.stringify({ turn: n })}\n`);

    await replica.restore(PARTITION, id);
    turn(1);
    await replica.sync(PARTITION, id);
    turn(2);
    loseNext();
    expect(await replica.sync(PARTITION, id).catch((error: unknown) => error)).toBeInstanceOf(TimeoutError);
    turn(3);
    await replica.sync(PARTITION, id);
    const stored = await kv.get(names.stateKey(PARTITION, id));
    const snapshot = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(stored?.value ?? []))));
    expect(snapshot.files['messages/base.jsonl']).toBe('{"turn":3}\n');

    // Another node, its snapshot being the same bytes or not, writes the state: fenced.
    await kv.put(names.stateKey(PARTITION, id), new Uint8Array(stored?.value ?? []));
    turn(4);
    expect(await replica.sync(PARTITION, id).catch((error: unknown) => error)).toBeInstanceOf(StateFencedError);
  });
});
