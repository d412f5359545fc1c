/**
 * Cluster mode, with a real `nats-server -js` and real nodes (3 s leases): the events a node held
 * (running, or queued behind the running turn) when their instance was deleted, and that node
 * died, are given up, as one node gives up what is queued for an instance it deletes
 * (INSTANCE_DELETED: the waiting caller is told, the accepting node's record says `dead`, a retry
 * under the Idempotency-Key gets the same error, and none runs). Before, the dead node's unacked
 * messages were redelivered after the takeover and ran in a fresh conversation: the tool the
 * running turn had called ran again, and its caller got a reply from a conversation that should
 * not exist. An event sent after the delete still runs, in the new conversation.
 */
import { describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { auditCluster, counterExecutions } from './cluster-audit.ts';
import { type ClusterHarness, clusterHarnesses } from './cluster-harness.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster');

const { cleanups, harness } = clusterHarnesses('goondan-cluster-deleted-redelivery-');

async function startNode(h: ClusterHarness, nodeId: string): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: h.counterFile },
    args: ['--cluster', h.nats.url, '--node-id', nodeId, '--cluster-lease-seconds', '3'],
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

/** An instance key of alpha that n3 owns, and that n2 takes over once n3 is gone. */
function keyOwnedByN3ThenN2(): string {
  const key = Array.from({ length: 400 }, (_, i) => `r${i}`).find((k) => {
    const partition = partitionOf({ agent: 'alpha', instanceKey: k }, PARTITIONS);
    return rendezvousOwner(partition, ['n1', 'n2', 'n3']) === 'n3' && rendezvousOwner(partition, ['n1', 'n2']) === 'n2';
  });
  if (key === undefined) throw new Error('no instance key owned by n3, then by n2, among 400');
  return key;
}

async function record(node: Daemon, eventId: string): Promise<Record<string, unknown>> {
  return (await (await node.api(`/v1/events/${eventId}`)).json()) as Record<string, unknown>;
}

function outcome(reply: { status: number; body: Record<string, unknown> }): { status: number; code: string | undefined; output: unknown } {
  return { status: reply.status, code: (reply.body.error as { code?: string } | undefined)?.code, output: reply.body.output };
}

/** What the user said in the instance's conversation, as a node shows it. */
async function userMessages(node: Daemon, key: string): Promise<unknown[]> {
  const response = await node.api(`/v1/instances/${key}/messages?agent=alpha`);
  if (response.status === 404) return [];
  const body = (await response.json()) as { messages: Array<{ data: { role: string; content: unknown } }> };
  return body.messages.filter((message) => message.data.role === 'user').map((message) => message.data.content);
}

async function storedInCluster(h: ClusterHarness, text: string): Promise<boolean> {
  return [...(await auditCluster(h.nats.url, 'cluster')).histories.values()].some((history) => history.includes(`user: ${text}`));
}

const GIVEN_UP = { status: 410, code: 'INSTANCE_DELETED', output: '' };

describe('cluster: events a dead node held when their instance was deleted', () => {
  test('are given up after the takeover (INSTANCE_DELETED), not run in a new conversation; one sent after the delete runs in it', async () => {
    const h = await harness();
    const [n1, n2, n3] = (await Promise.all(['n1', 'n2', 'n3'].map((id) => startNode(h, id)))) as [Daemon, Daemon, Daemon];
    await spreadOver([['n1', n1], ['n2', n2], ['n3', n3]]);
    const key = keyOwnedByN3ThenN2();
    expect(await n1.send({ input: 'remember apples', instanceKey: key })).toMatchObject({ status: 200 });

    // Accepted on n1 and running on n3 (its tool has run), its caller waiting on n1.
    const waiting = n1.send({ input: 'slow one', instanceKey: key, idempotencyKey: 'deleted-one' });
    await waitFor('the slow turn’s tool to run on n3', () => counterExecutions(h.counterFile).get('one') ?? 0, (n) => n === 1);
    // Accepted on n2, nobody waiting, queued on n3 behind the running turn.
    const unwaited = await n2.send({ input: 'count two', instanceKey: key, wait: false });
    expect(unwaited.status).toBe(202);
    const queuedOnN3 = async () => ((await n1.processes()).find((row) => row.instanceKey === key && row.node === 'n3')?.queued ?? 0) as number;
    await waitFor('both events in n3’s inbox', queuedOnN3, (queued) => queued === 2);
    await n3.stop('SIGKILL');

    const deletion = await n1.api(`/v1/instances/${key}`, { method: 'DELETE' });
    expect(deletion.status).toBe(200);
    expect(await deletion.json()).toMatchObject({ nodes: ['n1', 'n2'], unreachable: ['n3'] });
    // After the delete: the first event of the new conversation, run once n2 has taken the partition over.
    const after = n1.send({ input: 'count three', instanceKey: key });

    const [told, afterReply] = await Promise.all([waiting, after]);
    expect(outcome(told)).toEqual(GIVEN_UP);
    expect(outcome(afterReply)).toEqual({ status: 200, code: undefined, output: 'done three' });

    // The accepting nodes' records: n1 hears it from n2; n2 accepted and gave up the other itself.
    const oneId = String(told.body.eventId);
    const twoId = String(unwaited.body.eventId);
    expect(await waitFor('n1’s record of the given-up event', () => record(n1, oneId), (r) => r.status === 'dead')).toMatchObject({ code: 'INSTANCE_DELETED' });
    expect(await waitFor('n2’s record of the given-up event', () => record(n2, twoId), (r) => r.status === 'dead')).toMatchObject({ code: 'INSTANCE_DELETED' });
    // A retry under the key, on the accepting node or another, gets the same error and runs nothing.
    expect(outcome(await n1.send({ input: 'slow one', instanceKey: key, idempotencyKey: 'deleted-one' }))).toEqual(GIVEN_UP);
    expect(outcome(await n2.send({ input: 'slow one', instanceKey: key, idempotencyKey: 'deleted-one' }))).toEqual(GIVEN_UP);

    // The tool the dead node ran did not run again; the given-up events did not run at all.
    expect(Object.fromEntries(counterExecutions(h.counterFile))).toEqual({ one: 1, three: 1 });
    // The deleted conversation did not come back: the new one holds only what came after the delete.
    expect(await userMessages(n1, key)).toEqual(['count three']);
    expect(await storedInCluster(h, 'count three')).toBe(true);
    expect(await storedInCluster(h, 'remember apples')).toBe(false);
    expect(await storedInCluster(h, 'slow one')).toBe(false);
  });
});
