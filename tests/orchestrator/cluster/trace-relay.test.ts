/**
 * Cluster mode (orchestrator/cluster/trace-relay.ts), over a real nats-server: a node that runs an
 * event marked for another node's streaming caller sends that trace's runtime events there, and
 * only those; a mark that a node did not set is dropped; once the trace's events there are done,
 * nothing more goes. The e2e (tests/e2e/cluster-views.test.ts) streams a request across three nodes.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { STREAM_TO_KEY, TraceRelay } from '../../../orchestrator/cluster/trace-relay.ts';
import { RuntimeEventBus } from '../../../orchestrator/daemon/runtime-event-bus.ts';
import { createLogger } from '../../../shared/logger.ts';
import { makeEvent } from '../../../shared/ipc/control-events.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import type { RuntimeEvent, StreamedEvent } from '../../../shared/types/turns.ts';
import { type NatsServer, startNatsServer } from '../../helpers/nats-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TRACE = 'a'.repeat(32);
const OTHER_TRACE = 'b'.repeat(32);
const logger = createLogger({ name: 'trace-relay-test', level: 'silent' });

function started(traceId: string, agentName = 'alpha'): RuntimeEvent {
  return { type: 'turn.started', turnId: 'turn_1', eventId: 'evt_x', timestamp: new Date().toISOString(), agentName, instanceKey: 'k1', traceId, spanId: 'c'.repeat(16) };
}

async function node(nats: NatsServer, nodeId: string): Promise<{ relay: TraceRelay; bus: RuntimeEventBus; seen: StreamedEvent[] }> {
  const nc: NatsConnection = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const relay = new TraceRelay(nc, (id) => `test.node.${id}.runtime`, nodeId, logger);
  const bus = new RuntimeEventBus();
  const seen: StreamedEvent[] = [];
  bus.subscribe((event) => seen.push(event));
  const subscription = relay.start(bus);
  cleanups.push(() => {
    relay.stop();
    subscription.unsubscribe();
  });
  await nc.flush();
  return { relay, bus, seen };
}

const marked = (node: string, traceId = TRACE): AgentEvent =>
  makeEvent('agent.request', { kind: 'agent', name: 'alpha' }, { input: 'hi', traceId, metadata: { [STREAM_TO_KEY]: node }, replyTo: { target: 'orchestrator', correlationId: 'corr_1' } });

describe('TraceRelay', () => {
  test('sends the followed trace’s runtime events to the streaming caller’s node, and only those, until its events are done', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const [na, nb] = [await node(nats, 'na'), await node(nats, 'nb')];

    const event = marked('na');
    nb.relay.delivered(event);
    nb.bus.publish(started(TRACE));
    nb.bus.publish(started(OTHER_TRACE));
    await waitFor('the followed trace’s event on na', () => na.seen, (seen) => seen.length >= 1);
    expect(na.seen.map((e) => e.traceId)).toEqual([TRACE]);

    // Its requests onward within the trace carry the mark on; others lose a mark nobody set.
    const onward = makeEvent('agent.request', { kind: 'agent', name: 'alpha' }, { input: 'ask beta', traceId: TRACE });
    expect(nb.relay.outgoing(onward).metadata?.[STREAM_TO_KEY]).toBe('na');
    const spoofed = { ...marked('nx', OTHER_TRACE) };
    expect(nb.relay.outgoing(spoofed).metadata?.[STREAM_TO_KEY]).toBeUndefined();

    nb.relay.end(event.id);
    // The turn's last events still go for a moment; then nothing.
    nb.bus.publish(started(TRACE, 'late'));
    await waitFor('the late event on na', () => na.seen, (seen) => seen.some((e) => e.agentName === 'late'));
    await Bun.sleep(2_500);
    nb.bus.publish(started(TRACE, 'after'));
    await Bun.sleep(300);
    expect(na.seen.some((e) => e.agentName === 'after')).toBe(false);
  });

  test('a caller streaming on its own node marks what it sends into the cluster; events it runs itself are not sent anywhere', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const [na, nb] = [await node(nats, 'na'), await node(nats, 'nb')];
    na.relay.streamedHere(TRACE, 'caller_1');
    const request = makeEvent('api.input', { kind: 'api', name: 'http' }, { input: 'hi', traceId: TRACE });
    expect(na.relay.outgoing(request).metadata?.[STREAM_TO_KEY]).toBe('na');
    // Run on na itself (its own mark): followed for nobody else.
    na.relay.delivered(marked('na'));
    na.bus.publish(started(TRACE));
    await Bun.sleep(300);
    expect(nb.seen).toEqual([]);
    expect(na.seen).toHaveLength(1);
  });
});
