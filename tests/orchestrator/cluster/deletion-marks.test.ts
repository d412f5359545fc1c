/**
 * What an instance deletion gives up in cluster mode (deletion-marks.ts), on a real
 * `nats-server -js`: the inbox messages an owner had taken — delivered to it, running or queued
 * there, not finished — when the deletion began, told by stream sequence. A message no owner has
 * taken (its partition has no live owner) is not marked: it never started, and runs in the new
 * conversation. A mark whose deletion was refused is taken back.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterInbox, type InboxEnvelope } from '../../../orchestrator/cluster/cluster-inbox.ts';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { DeletionMarks } from '../../../orchestrator/cluster/deletion-marks.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const names = new ClusterNames('deletion-marks');
const PARTITION = 3;
const ID = { agent: 'alpha', instanceKey: 'k0' };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function envelope(id: string): InboxEnvelope {
  const event: AgentEvent = { id, type: 'api.input', createdAt: new Date().toISOString(), input: 'hello', instanceKey: ID.instanceKey, source: { kind: 'api', name: 'test' } };
  return { target: ID, from: 'test', kind: 'send', origin: 'n1', event };
}

/** A node's inbox over its own connection; `pulled` collects the stream sequences handed to it. */
async function nodeInbox(url: string, pulled: number[] = []): Promise<{ nc: NatsConnection; inbox: ClusterInbox }> {
  const nc = await connect({ servers: url });
  cleanups.push(() => nc.close());
  const inbox = new ClusterInbox({
    names,
    js: jetstream(nc),
    jsm: await jetstreamManager(nc),
    ackWaitMs: 60_000,
    logger: pino({ level: 'silent' }),
    onEvent: async (_envelope, _partition, seq) => void pulled.push(seq),
    onMalformed: () => {},
  });
  await inbox.ensureStream();
  return { nc, inbox };
}

describe('deletion marks: a deletion gives up what owners had taken of the instance’s inbox', () => {
  test('a message taken by an owner that died with it is marked; one no owner took, before or after it, is not; a withdrawn mark gives nothing up', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const pulled: number[] = [];
    const owner = await nodeInbox(nats.url, pulled);
    const other = await nodeInbox(nats.url);
    const otherJsm = await jetstreamManager(other.nc);
    const marks = new DeletionMarks({ kv: await new Kvm(other.nc).create(names.deletionMarksBucket, { history: 1 }), names, takenThrough: (partition, id) => other.inbox.takenThrough(partition, id) });

    await other.inbox.publish(PARTITION, envelope('e1'));
    // No owner has pulled the partition yet: nothing is taken, nothing is marked.
    expect(await other.inbox.takenThrough(PARTITION, ID)).toBeUndefined();
    await marks.mark(PARTITION, ID);
    expect(await marks.deletedThrough(PARTITION, ID)).toBe(0);

    await owner.inbox.startPartition(PARTITION);
    const taken = (await waitFor('the owner to take the message', () => [...pulled], (seqs) => seqs.length === 1))[0];
    if (taken === undefined) throw new Error('the owner took no message');
    // The owner dies with it unacked; a message accepted afterwards reaches no owner.
    await owner.nc.close();
    // The server drops a closed connection's pull requests a moment after the close; until then
    // it would deliver e2 into that dead request and count it as taken.
    await waitFor('the server to drop the dead owner’s pull request', () => otherJsm.consumers.info(names.inboxStream, names.partitionConsumer(PARTITION)), (info) => info.num_waiting === 0);
    await other.inbox.publish(PARTITION, envelope('e2'));
    expect(await other.inbox.takenThrough(PARTITION, ID)).toBe(taken);

    const withdraw = await marks.mark(PARTITION, ID);
    expect(await marks.deletedThrough(PARTITION, ID)).toBe(taken);
    await withdraw();
    expect(await marks.deletedThrough(PARTITION, ID)).toBe(0);
  }, 60_000);
});
