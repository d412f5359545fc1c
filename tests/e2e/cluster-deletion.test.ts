/**
 * Cluster mode: a deleted instance stays deleted while nodes die and take over, with a real
 * `nats-server -js` and real nodes (3 s leases). Before:
 * - the owner killed, a delete through another node answered after 13 s (it waited for the dead
 *   node), and when the owner came back its own files brought the deleted conversation back (the
 *   snapshot's delete marker read like "never replicated");
 * - a delete while a takeover happened: the new owner restored the conversation from the snapshot,
 *   still there until the delete ended, and stored it again — the instance went on with it;
 * - a node cut off from NATS answered a delete only after 13 s.
 * Now the snapshot gives way to a tombstone first, every restore respects it (a new conversation
 * under the key writes on from it), and nobody waits for a node that cannot answer.
 */
import { describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { type ClusterHarness, clusterHarnesses } from './cluster-harness.ts';
import { auditCluster } from './cluster-audit.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster');
/** The fixture's shutdown grace period: what a delete used to wait for a dead node (plus 3 s). */
const GRACE_MS = 10_000;

const { cleanups, harness } = clusterHarnesses('goondan-cluster-deletion-');
type Harness = ClusterHarness;

async function startNode(h: Harness, nodeId: string, options: { stateRoot?: string; leaseSeconds?: string } = {}): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: h.counterFile },
    args: ['--cluster', h.nats.url, '--node-id', nodeId, '--cluster-lease-seconds', options.leaseSeconds ?? '3'],
    ...(options.stateRoot ? { stateRoot: options.stateRoot } : {}),
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

/** Three nodes with their partitions spread, and an instance key of alpha that n3 owns. */
async function threeNodes(h: Harness): Promise<{ n1: Daemon; n2: Daemon; n3: Daemon; key: string }> {
  const ids = ['n1', 'n2', 'n3'];
  const [n1, n2, n3] = (await Promise.all(ids.map((id) => startNode(h, id)))) as [Daemon, Daemon, Daemon];
  await spreadOver([['n1', n1], ['n2', n2], ['n3', n3]]);
  const key = Array.from({ length: 200 }, (_, i) => `d${i}`).find((k) => rendezvousOwner(partitionOf({ agent: 'alpha', instanceKey: k }, PARTITIONS), ids) === 'n3');
  if (key === undefined) throw new Error('no instance key owned by n3 among 200');
  return { n1, n2, n3, key };
}

/** Whether some snapshot in the cluster's state bucket holds this user message. */
async function storedInCluster(h: Harness, text: string): Promise<boolean> {
  return [...(await auditCluster(h.nats.url, 'cluster')).histories.values()].some((history) => history.includes(`user: ${text}`));
}

/** What the user said in the instance's conversation, as a node shows it (gathered from the node holding it). */
async function userMessages(node: Daemon, key: string): Promise<unknown[]> {
  const response = await node.api(`/v1/instances/${key}/messages?agent=alpha`);
  if (response.status === 404) return [];
  const body = (await response.json()) as { messages: Array<{ data: { role: string; content: unknown } }> };
  return body.messages.filter((message) => message.data.role === 'user').map((message) => message.data.content);
}

async function listedKeys(node: Daemon): Promise<string[]> {
  const body = (await (await node.api('/v1/instances')).json()) as { instances: Array<{ instanceKey: string }> };
  return body.instances.map((instance) => instance.instanceKey);
}

describe('cluster: deleting an instance while a node is down or taking over', () => {
  test('the owner killed: the delete answers without waiting for it, and when it comes back its copy is gone, not revived', async () => {
    const h = await harness();
    const { n1, n2, n3, key } = await threeNodes(h);
    expect(await n1.send({ input: 'remember apples', instanceKey: key })).toMatchObject({ status: 200 });
    await waitFor('the conversation stored in the cluster', () => storedInCluster(h, 'remember apples'), (held) => held);

    await n3.stop('SIGKILL');
    const started = performance.now();
    const response = await n2.api(`/v1/instances/${key}`, { method: 'DELETE' });
    const tookMs = performance.now() - started;
    expect(response.status).toBe(200);
    // n3 is still a member (its lease has not run out) but cannot answer: named, not waited for.
    expect(await response.json()).toMatchObject({ nodes: ['n1', 'n2'], unreachable: ['n3'] });
    expect(tookMs).toBeLessThan(GRACE_MS);
    expect(await storedInCluster(h, 'remember apples')).toBe(false);

    // n3 returns with its files; it takes its partitions back.
    const back = await startNode(h, 'n3', { stateRoot: n3.stateRoot });
    await spreadOver([['n1', n1], ['n2', n2], ['n3', back]]);
    // Its copy goes before anything is sent to the instance: no node lists it.
    await waitFor('no node to list the deleted instance', () => listedKeys(n1), (keys) => !keys.includes(key));

    expect(await n1.send({ input: 'hello again', instanceKey: key })).toMatchObject({ status: 200 });
    expect(await userMessages(n1, key)).toEqual(['hello again']);
    expect(await storedInCluster(h, 'remember apples')).toBe(false);
  });

  test('a takeover while the delete runs does not restore the deleted conversation or store it again; a new one under the key goes on', async () => {
    const h = await harness();
    const { n1, n2, n3, key } = await threeNodes(h);
    expect(await n1.send({ input: 'remember apples', instanceKey: key })).toMatchObject({ status: 200 });
    await waitFor('the conversation stored in the cluster', () => storedInCluster(h, 'remember apples'), (held) => held);

    await n3.stop('SIGKILL');
    // The delete and an event for the instance at once. Which comes first is the race's to decide: the
    // event runs in a new conversation once a survivor has taken the partition over, or — taken by an
    // owner before the deletion marked the instance's inbox — it is given up (cluster-deleted-redelivery.test.ts).
    const [response, reply] = await Promise.all([n2.api(`/v1/instances/${key}`, { method: 'DELETE' }), n1.send({ input: 'count two', instanceKey: key })]);
    expect(response.status).toBe(200);
    const ran = reply.status === 200;
    if (ran) expect(reply).toMatchObject({ body: { output: 'done two' } });
    else expect(reply).toMatchObject({ status: 410, body: { error: { code: 'INSTANCE_DELETED' } } });

    const said = await userMessages(n1, key);
    expect(said).not.toContain('remember apples');
    expect(said).toEqual(ran ? ['count two'] : []);
    expect(await n2.send({ input: 'count three', instanceKey: key })).toMatchObject({ status: 200, body: { output: 'done three' } });
    expect(await userMessages(n2, key)).toEqual(ran ? ['count two', 'count three'] : ['count three']);
    expect(await storedInCluster(h, 'remember apples')).toBe(false);
    expect(await storedInCluster(h, 'count three')).toBe(true);
  });

  test('a node cut off from NATS refuses a delete at once (503), without waiting for the other nodes', async () => {
    const h = await harness();
    const node = await startNode(h, 'n1', { leaseSeconds: '15' });
    expect(await node.send({ input: 'remember apples', instanceKey: 'cut' })).toMatchObject({ status: 200 });
    await h.nats.kill9();
    await waitFor('/readyz to say cluster-disconnected', async () => (await node.api('/readyz')).status, (status) => status === 503);

    const started = performance.now();
    const response = await node.api('/v1/instances/cut', { method: 'DELETE' });
    const tookMs = performance.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: 'CLUSTER_UNAVAILABLE' } });
    // Before: 13 s (the grace period and a margin, waiting for answers that could not come).
    expect(tookMs).toBeLessThan(GRACE_MS / 2);
    // Nothing was deleted here either.
    expect(await userMessages(node, 'cut')).toEqual(['remember apples']);
  });
});
