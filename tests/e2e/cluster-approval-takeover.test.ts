/**
 * Cluster mode: a pending tool approval survives a takeover, with a real `nats-server -js` and real
 * nodes (3 s leases). Before, approvals.json was not part of the replicated instance state: after
 * the owner was killed, the new owner asked again under a new id with a new createdAt/expiresAt,
 * the person's decision for the id they had been shown got 404, and "approve for this session"
 * grants were lost (the same call asked again). Now the approval keeps its id, createdAt and
 * expiresAt, is decided under that id on the new owner, and the session grant holds there. On the
 * way, a person sees and decides an approval held by another node through the node their request
 * reaches (before the takeover too). A decision no node can take is 404 at once (every node says it
 * does not hold it), and one for an approval whose holder does not answer (SIGSTOPped) is 503
 * CLUSTER_UNAVAILABLE with Retry-After, not 404: before, only the holder answered, so the first
 * waited out the whole wait and the second was told "already decided or expired" while pending.
 * And the new owner holds the approval from the takeover on: before, it picked it up only when the
 * waiting turn's event came to it again, and a decision in between (here the event is kept away
 * from it until the decision is made) was a 404 although the approval was pending and stored.
 */
import { afterEach, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { type JsMsg, jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { DECIDE_WAIT_MS } from '../../orchestrator/cluster/cluster-approvals.ts';
import { ClusterNames } from '../../orchestrator/cluster/cluster-names.ts';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster-approvals');
const names = new ClusterNames('cluster-approvals');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Listed {
  id: string;
  node?: string;
  toolName: string;
  instanceKey: string;
  createdAt: string;
  expiresAt: string;
  args: Record<string, unknown>;
}

async function pending(node: Daemon): Promise<Listed[]> {
  return ((await (await node.api('/v1/approvals')).json()) as { approvals: Listed[] }).approvals;
}

async function decision(node: Daemon, id: string, scope: 'once' | 'session'): Promise<Response> {
  return node.api(`/v1/approvals/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve', scope }) });
}

async function decide(node: Daemon, id: string, scope: 'once' | 'session'): Promise<number> {
  return (await decision(node, id, scope)).status;
}

/**
 * A new owner slow to get the waiting turn's event again: the test takes the partition's next
 * message itself (the event, due again once its dead owner stops keeping it in progress) and keeps
 * it in progress until `release`, which gives it back to the partition's owner at once.
 */
async function withholdNextEvent(url: string, partition: number): Promise<{ release(): Promise<void>; close(): Promise<void> }> {
  const nc = await connect({ servers: url });
  const consumer = await jetstream(nc).consumers.get(names.inboxStream, names.partitionConsumer(partition));
  let keep: ReturnType<typeof setInterval> | undefined;
  const taken = consumer.next({ expires: 30_000 }).then((msg: JsMsg | null) => {
    if (!msg) throw new Error(`no message of partition ${partition} came within 30 s: the waiting turn's event was not due again`);
    keep = setInterval(() => msg.working(), 300);
    return msg;
  });
  return {
    release: async () => {
      const msg = await taken;
      clearInterval(keep);
      msg.nak();
    },
    close: async () => {
      clearInterval(keep);
      await nc.close();
    },
  };
}

/** Resolves once `node` holds the partition's lease (it took the partition over). */
async function leaseHeldBy(url: string, partition: number, node: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const leases = await new Kvm(nc).open(names.leasesBucket);
    const holder = async () => {
      const entry = await leases.get(names.leaseKey(partition));
      return entry?.operation === 'PUT' ? (entry.json() as { node?: string }).node : undefined;
    };
    await waitFor(`partition ${partition}'s lease held by ${node}`, holder, (held) => held === node);
  } finally {
    await nc.close();
  }
}

async function eventStatus(node: Daemon, eventId: unknown): Promise<Record<string, unknown>> {
  return (await (await node.api(`/v1/events/${String(eventId)}`)).json()) as Record<string, unknown>;
}

test('an approval held by another node is seen and decided through the node a request reaches, one no node holds is 404 at once, one whose holder does not answer is 503 (retry); a pending approval keeps its id, createdAt and expiresAt across a takeover and is decided under that id; a session grant holds on the new owner', async () => {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const start = async (nodeId: string) => {
    const daemon = await startDaemon(BUNDLE, {
      env: { GOONDAN_WARM_POOL: '0', GOONDAN_APPROVALS: 'http', GOONDAN_LOG_LEVEL: 'info' },
      args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', '3'],
    });
    cleanups.push(() => daemon.cleanup());
    return daemon;
  };
  const [a, b] = [await start('na'), await start('nb')];
  await spreadOver([['na', a], ['nb', b]]);
  const key = Array.from({ length: 200 }, (_, i) => `w${i}`).find((k) => rendezvousOwner(partitionOf({ agent: 'writer', instanceKey: k }, PARTITIONS), ['na', 'nb']) === 'nb');
  if (key === undefined) throw new Error('no writer instance key owned by nb among 200');

  // On nb (its agent asked), listed and decided on na: a.txt approved for the session.
  const first = await a.send({ input: 'write a.txt', instanceKey: key, wait: false });
  expect(first.status).toBe(202);
  const [granted] = await waitFor('the first approval listed', () => pending(a), (approvals) => approvals.length === 1);
  expect(granted).toMatchObject({ node: 'nb', toolName: 'file-system__write', instanceKey: key, args: { path: 'a.txt' } });
  expect(await decide(a, String(granted?.id), 'session')).toBe(200);
  const firstDone = await waitFor('the first write done', () => eventStatus(a, first.body.eventId), (record) => record.status === 'done');
  expect(firstDone).toMatchObject({ reply: { status: 'ok', output: 'wrote: a.txt' } });
  // Decided once: an unknown id is still 404 — as soon as both nodes said they do not hold it, not after the wait for a silent one.
  const asked = performance.now();
  expect((await a.api('/v1/approvals/appr_unknown', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'deny' }) })).status).toBe(404);
  expect(performance.now() - asked).toBeLessThan(DECIDE_WAIT_MS);
  // And again: the first decision of a.txt, sent once more, stands (nb took it).
  expect(await decide(a, String(granted?.id), 'session')).toBe(200);

  // On nb: b.txt waits for a person when nb is killed.
  const second = await a.send({ input: 'write b.txt', instanceKey: key, wait: false });
  const [held] = await waitFor('the second approval listed, held by nb', () => pending(a), (approvals) => approvals.length === 1 && approvals[0]?.node === 'nb');
  if (!held) throw new Error('no approval listed');

  // The waiting turn's event will not reach na before the decision: it is taken as soon as it is due again.
  const partition = partitionOf({ agent: 'writer', instanceKey: key }, PARTITIONS);
  const withheld = await withholdNextEvent(nats.url, partition);
  cleanups.push(() => withheld.close());

  // nb is gone but still named by its lease: whether b.txt is still pending is unknown on na — retry, not "already decided".
  await b.stop('SIGKILL');
  const unanswered = await decision(a, held.id, 'once');
  expect(unanswered.status).toBe(503);
  expect(unanswered.headers.get('retry-after')).toBe('1');
  expect(await unanswered.json()).toMatchObject({ error: { code: 'CLUSTER_UNAVAILABLE', details: { approvalId: held.id, silent: ['nb'] } } });

  // na takes the instance's partition over: it holds the same approval at once, not a new one, and not only from the event on.
  await leaseHeldBy(nats.url, partition, 'na');
  const [taken] = await pending(a);
  expect(taken).toMatchObject({ node: 'na', id: held.id, createdAt: held.createdAt, expiresAt: held.expiresAt, args: { path: 'b.txt' } });
  expect(await decide(a, held.id, 'once')).toBe(200);
  // The event reaches na: its turn resumes with the decision made meanwhile.
  await withheld.release();
  const done = await waitFor('the second write done on na', () => eventStatus(a, second.body.eventId), (record) => record.status === 'done');
  expect(done).toMatchObject({ reply: { status: 'ok', output: 'wrote: b.txt' } });

  // The session grant came along: the same call runs on na without asking.
  const third = await a.send({ input: 'write a.txt', instanceKey: key, timeoutMs: 20_000 });
  expect(third).toMatchObject({ status: 200, body: { status: 'ok', output: 'wrote: a.txt' } });
  expect(await pending(a)).toEqual([]);
});
