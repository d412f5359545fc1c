/**
 * An instance's events reach it in the order they were published, also when its partition changes
 * owner (a real `nats-server -js`). A previous owner had taken the older event and not acked it
 * (it died, lost its lease while still keeping the message alive, or had it buffered when it
 * stopped pulling); JetStream gives it to the new owner only when its ack wait runs out, while a
 * newer event of the same instance comes at once. Started first, the newer turn would find the
 * older one unfinished and settle its tool calls as interrupted — the older event never answered.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { AckPolicy, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterInbox, type InboxEnvelope } from '../../../orchestrator/cluster/cluster-inbox.ts';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { type NatsServer, startNatsServer } from '../../helpers/nats-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const ACK_WAIT_MS = 1_000;
const PARTITION = 3;
const names = new ClusterNames('order-test');
const target = { agent: 'alpha', instanceKey: 'k0' };
const silent = pino({ level: 'silent' });

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(nats: NatsServer): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close().catch(() => undefined));
  return nc;
}

function envelope(label: string): InboxEnvelope {
  const event: AgentEvent = { id: `evt-${label}`, type: 'api.input', createdAt: new Date().toISOString(), input: `count ${label}`, instanceKey: target.instanceKey, source: { kind: 'api', name: 'test' } };
  return { target, from: 'test', kind: 'send', origin: 'n1', event };
}

/** A NATS server and a node's inbox on it (not pulling yet), with what it hands to local delivery, in order. */
async function node(): Promise<{ nats: NatsServer; inbox: ClusterInbox; delivered: string[] }> {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const nc = await connected(nats);
  const delivered: string[] = [];
  const inbox = new ClusterInbox({
    names,
    js: jetstream(nc),
    jsm: await jetstreamManager(nc),
    ackWaitMs: ACK_WAIT_MS,
    logger: silent,
    onEvent: async (received) => {
      delivered.push(received.event.input ?? '');
    },
    onMalformed: () => {},
  });
  await inbox.ensureStream();
  cleanups.push(() => inbox.close());
  return { nats, inbox, delivered };
}

/** The partition's previous owner, on its own connection: it takes the oldest message and does not ack it. */
async function previousOwnerTakes(nats: NatsServer): Promise<{ taken: JsMsg; connection: NatsConnection }> {
  const connection = await connected(nats);
  await (await jetstreamManager(connection)).consumers.add(names.inboxStream, { durable_name: names.partitionConsumer(PARTITION), filter_subject: names.partitionFilter(PARTITION), ack_policy: AckPolicy.Explicit, ack_wait: nanos(ACK_WAIT_MS), max_deliver: -1, max_ack_pending: 10_000 });
  const taken = await (await jetstream(connection).consumers.get(names.inboxStream, names.partitionConsumer(PARTITION))).next();
  if (taken?.seq !== 1) throw new Error(`the previous owner took ${taken?.seq ?? 'nothing'}, not the first message`);
  return { taken, connection };
}

describe('an instance’s events across a change of owner', () => {
  test('the older event a previous owner took and never acked comes before a newer one', async () => {
    const { nats, inbox, delivered } = await node();
    await inbox.publish(PARTITION, envelope('e0'));
    // The previous owner takes e0 and goes away without an ack.
    await (await previousOwnerTakes(nats)).connection.close();

    await inbox.publish(PARTITION, envelope('e1'));
    await inbox.startPartition(PARTITION);
    await waitFor('both events delivered', () => [...delivered], (list) => list.length >= 2, 10_000);
    expect(delivered).toEqual(['count e0', 'count e1']);
  });

  test('an older event the previous owner acks after all is waited for no more: the newer one goes on', async () => {
    const { nats, inbox, delivered } = await node();
    await inbox.publish(PARTITION, envelope('e0'));
    await inbox.publish(PARTITION, envelope('e1'));
    // The previous owner, still alive, has e0 and keeps it in progress; the new owner gets e1.
    const { taken } = await previousOwnerTakes(nats);
    await inbox.startPartition(PARTITION);
    await Bun.sleep(ACK_WAIT_MS / 2);
    taken.working();
    expect(delivered).toEqual([]);

    await taken.ackAck();
    await waitFor('the newer event delivered', () => [...delivered], (list) => list.length >= 1, 10_000);
    expect(delivered).toEqual(['count e1']);
  });

  test('after a reconnect, a newer event of an instance whose older one is in progress here is not held', async () => {
    const { inbox, delivered } = await node();
    await inbox.startPartition(PARTITION);
    await inbox.publish(PARTITION, envelope('e0'));
    await waitFor('e0 delivered', () => [...delivered], (list) => list.length >= 1, 10_000);

    // e0's turn runs (in progress, not acked) when the connection to NATS comes back.
    await inbox.resumeAll();
    await inbox.publish(PARTITION, envelope('e1'));
    await waitFor('e1 delivered', () => [...delivered], (list) => list.length >= 2, ACK_WAIT_MS / 2);
    expect(delivered).toEqual(['count e0', 'count e1']);
  });
});
