/**
 * A reply for a caller waiting on another node reaches that node also when it cannot take it at
 * the moment it is sent (NATS restarting, the node reconnecting): it is sent again until the
 * node says it has it, or until the caller's deadline. Before, it was published once, and a lost
 * one left an HTTP caller waiting out its timeout (504) for a turn that had answered. A real
 * `nats-server -js`, two connections.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { RemoteReplies } from '../../../orchestrator/cluster/remote-replies.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';

const names = new ClusterNames('remote-replies');
const silent = pino({ level: 'silent' });
const reply: AgentEvent = { id: 'evt-reply', type: 'agent.reply', createdAt: new Date().toISOString(), input: 'the answer', source: { kind: 'agent', name: 'writer' }, metadata: { inReplyTo: 'corr-1' } };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connections(): Promise<[NatsConnection, NatsConnection]> {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const [a, b] = await Promise.all([connect({ servers: nats.url }), connect({ servers: nats.url })]);
  cleanups.push(() => a.close(), () => b.close());
  return [a, b];
}

describe('replies to a caller on another node', () => {
  test('sent while the caller’s node cannot take them, they arrive once it can, and the sending stops', async () => {
    const [owner, callerNode] = await connections();
    const replies = new RemoteReplies(owner, (node) => names.nodeReplies(node), silent);
    const sent = replies.send('n2', reply, Date.now() + 20_000);

    // n2 is not listening yet (reconnecting): nothing takes the reply for a while.
    await Bun.sleep(1_200);
    const received: string[] = [];
    const subscription = callerNode.subscribe(names.nodeReplies('n2'), {
      callback: (_error, msg) => {
        received.push(String((msg.json() as AgentEvent).metadata?.inReplyTo));
        msg.respond();
      },
    });
    cleanups.push(() => subscription.unsubscribe());
    await sent;
    await Bun.sleep(1_200);
    expect(received).toEqual(['corr-1']);
  });

  test('a node that never takes it is given up at the caller’s deadline', async () => {
    const [owner] = await connections();
    const replies = new RemoteReplies(owner, (node) => names.nodeReplies(node), silent);
    const started = Date.now();
    await replies.send('gone', reply, Date.now() + 1_500);
    // Sent again meanwhile (every 0.5 s), then given up: not left to run on.
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5_000);
  });
});
