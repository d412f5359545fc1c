/**
 * An event sent to the cluster while the NATS server restarts is stored once it is back, within
 * the caller's patience, instead of being refused: a publish that got no answer is sent again
 * under the same msgID, which JetStream stores once (a repeat is answered as a duplicate). Before,
 * the caller waited the client's 5 s timeout for a 503 (a bench probe: half of the requests sent
 * during a restart). A real `nats-server -js`, restarted as an operator does (SIGTERM).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterInbox, type InboxEnvelope } from '../../../orchestrator/cluster/cluster-inbox.ts';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';

const names = new ClusterNames('inbox-publish');
const PARTITION = 7;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function envelope(id: string): InboxEnvelope {
  const event: AgentEvent = { id, type: 'api.input', createdAt: new Date().toISOString(), input: 'hello', instanceKey: 'k0', source: { kind: 'api', name: 'test' } };
  return { target: { agent: 'alpha', instanceKey: 'k0' }, from: 'test', kind: 'send', origin: 'n1', event };
}

describe('publishing an event while the NATS server restarts', () => {
  test('it is stored once the server is back, once, and the publish resolves', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    cleanups.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    const inbox = new ClusterInbox({ names, js: jetstream(nc), jsm, ackWaitMs: 1_000, logger: pino({ level: 'silent' }), onEvent: async () => {}, onMalformed: () => {} });
    await inbox.ensureStream();

    const restarting = nats.restart();
    // Sent as the server goes down: no answer comes until it is back.
    await Bun.sleep(20);
    const published = inbox.publish(PARTITION, envelope('evt-during-restart'));
    await restarting;
    await published;
    // A caller's retry of the same event (its first attempt had landed): stored once.
    await inbox.publish(PARTITION, envelope('evt-during-restart'));
    const info = await (await jetstreamManager(nc)).streams.info(names.inboxStream);
    expect(info.state.messages).toBe(1);
  });
});
