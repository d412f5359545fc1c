/**
 * Cluster mode and what a node shows of work that runs on other nodes, with a real
 * `nats-server -js`. The events it accepted (`GET /v1/events/{id}`, a retry under the same
 * Idempotency-Key):
 * - an event accepted by one node and run by another (the instance's owner) shows `done` where it
 *   was accepted, whether its caller waited, did not, or stopped waiting (504), and on any other
 *   node (which asks), and a retry there gets its reply at once;
 * - an event the cluster refused (503, NATS down) is not shown as accepted, and a retry under its
 *   key once NATS is back runs it, once, under the refused event's id;
 * - a retry through another node (or at the same moment on two) answers with the first event,
 *   which runs once: the key is claimed for the whole cluster.
 * Before, the accepting node showed such events `queued` for good, and a retry under the key waited
 * out its timeout (504) for an event that had answered, or that had never been accepted.
 * Before, a retry through another node ran the event again. The process table: a node with no
 * process of its own showed an empty table. Deleting an instance and a connector's redelivery, on
 * any node (pending tool approvals on any node: cluster-approval-takeover.test.ts); an event given up
 * for its instance's deletion stays `dead` where it was accepted, also when the owner's error reply
 * for its waiting caller gets there before the notice (before, the reply made it `done` for good).
 *
 * The tests that stop neither NATS nor a node share one pair of nodes (`twoNodes`): each uses
 * instance keys, counter labels and Idempotency-Keys of its own, and judges the shared counter
 * file by its own labels only.
 */
import { describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { ClusterNames } from '../../orchestrator/cluster/cluster-names.ts';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { SETTLED_EVENT_KEY } from '../../orchestrator/routing/foreign-outcomes.ts';
import { runtimeError } from '../../shared/errors/index.ts';
import { ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { failureOutcome, makeReplyEvent } from '../../shared/ipc/reply-events.ts';
import type { NatsServer } from '../helpers/nats-server.ts';
import { auditCluster, counterExecutions } from './cluster-audit.ts';
import { type Cleanup, type ClusterHarness, clusterHarnesses, sharedClusterHarness } from './cluster-harness.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';
import { holdGates } from './hold-gates.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster');
const CONNECTORS_BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/connectors');

/** A nats-server per test, for the tests that stop it or run nodes of their own. */
const { cleanups, harness: cluster } = clusterHarnesses('goondan-cluster-views-');
/** The one the shared pair runs on. */
const shared = sharedClusterHarness('goondan-cluster-views-shared-');
/** `held X GATE` holds its counter call until the test opens GATE. */
const gates = holdGates();

async function startNode(nats: NatsServer, counterFile: string, nodeId: string, cleanupsOfNode: Cleanup[] = cleanups): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: counterFile },
    // A long lease: nothing here is about a takeover.
    args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', '15'],
  });
  cleanupsOfNode.push(() => daemon.cleanup());
  return daemon;
}


async function record(node: Daemon, eventId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await node.api(`/v1/events/${eventId}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Asks again while the answer is 503 (CLUSTER_UNAVAILABLE, "retry shortly"), as a client is told
 * to: a node that is slow to answer (a loaded CI machine) makes a cross-node lookup 503, not wrong.
 */
function retriedWhileUnavailable<T extends { status: number }>(ask: () => Promise<T>): Promise<T> {
  return waitFor('an answer other than 503', ask, (answer) => answer.status !== 503);
}

/** Instance keys of `alpha` (named `<prefix><n>`: a prefix per test) whose partition `owner` holds among na and nb. */
function keysOwnedBy(owner: string, prefix: string): string[] {
  return Array.from({ length: 200 }, (_, i) => `${prefix}${i}`).filter((key) => rendezvousOwner(partitionOf({ agent: 'alpha', instanceKey: key }, PARTITIONS), ['na', 'nb']) === owner);
}

/** The first instance key of alpha named `<prefix><n>` that nb owns. */
function keyOnB(prefix: string): string {
  const [key] = keysOwnedBy('nb', prefix);
  if (key === undefined) throw new Error(`no instance key ${prefix}… owned by nb among 200`);
  return key;
}

/** How often the counter calls of these labels ran: the shared pair's counter file holds every test's. */
function executionsOf(counterFile: string, labels: string[]): Map<string, number> {
  return new Map([...counterExecutions(counterFile)].filter(([label]) => labels.includes(label)));
}

interface Pair extends ClusterHarness {
  a: Daemon;
  b: Daemon;
}
let pair: Promise<Pair> | undefined;

/**
 * Nodes na and nb over one nats-server, their partitions spread as rendezvous hashing assigns
 * them: started by the first test that asks, shared by the tests that stop neither NATS nor a
 * node, killed after the file.
 */
function twoNodes(): Promise<Pair> {
  pair ??= (async () => {
    const h = await shared.harness();
    const a = await startNode(h.nats, h.counterFile, 'na', shared.cleanups);
    const b = await startNode(h.nats, h.counterFile, 'nb', shared.cleanups);
    await spreadOver([['na', a], ['nb', b]]);
    return { ...h, a, b };
  })();
  return pair;
}

/** The first test on the shared pair: na runs no process yet, and the pair holds only the instances this test makes. */
describe('cluster: the process table and the studio’s instance views', () => {
  test('a node with no process of its own still shows the others’ (GET /v1/processes); every node lists every instance, and shows a conversation another node holds', async () => {
    const { a, b } = await twoNodes();
    const [there, here] = [keysOwnedBy('nb', 'view')[0], keysOwnedBy('na', 'view')[0]];
    if (there === undefined || here === undefined) throw new Error('no instance keys on both nodes among 200');
    expect(await a.send({ input: `hello ${there}`, instanceKey: there })).toMatchObject({ status: 200 });
    // No warm pool: na runs nothing; the instance runs on nb.
    const rows = await a.processes();
    expect(rows.map((row) => [row.node, row.agent, row.instanceKey])).toEqual([['nb', 'alpha', there]]);

    expect(await a.send({ input: `hello ${here}`, instanceKey: here })).toMatchObject({ status: 200 });
    for (const node of [a, b]) {
      const listed = (await (await node.api('/v1/instances')).json()) as { instances: Array<{ instanceKey: string; agents: Array<{ agent: string }> }> };
      expect(listed.instances.map((instance) => instance.instanceKey).sort()).toEqual([there, here].sort());
    }
    const response = await retriedWhileUnavailable(() => a.api(`/v1/instances/${there}/messages?agent=alpha`));
    expect(response.status).toBe(200);
    const conversation = (await response.json()) as { messages: Array<{ data: { role: string; content: unknown } }> };
    expect(conversation.messages.filter((message) => message.data.role === 'user').map((message) => message.data.content)).toEqual([`hello ${there}`]);
    expect((await a.api('/v1/instances/nobody/messages?agent=alpha')).status).toBe(404);
  });
});

describe('cluster: a conversation held by a node that does not answer', () => {
  test('is 503 CLUSTER_UNAVAILABLE naming that node, with Retry-After, not 404; once it answers it is shown', async () => {
    const h = await cluster();
    const a = await startNode(h.nats, h.counterFile, 'na');
    const b = await startNode(h.nats, h.counterFile, 'nb');
    await spreadOver([['na', a], ['nb', b]]);
    const there = keyOnB('mute');
    expect(await a.send({ input: `hello ${there}`, instanceKey: there })).toMatchObject({ status: 200 });
    // nb is a live member that takes nothing now (a busy or stalled node).
    b.proc.kill('SIGSTOP');
    try {
      const response = await a.api(`/v1/instances/${there}/messages?agent=alpha`);
      const error = ((await response.json()) as { error?: { code?: string; details?: { silent?: string[] } } }).error;
      expect({ status: response.status, code: error?.code, silent: error?.details?.silent, retryAfter: response.headers.get('retry-after') !== null }).toEqual({
        status: 503,
        code: 'CLUSTER_UNAVAILABLE',
        silent: ['nb'],
        retryAfter: true,
      });
    } finally {
      b.proc.kill('SIGCONT');
    }
    expect((await retriedWhileUnavailable(() => a.api(`/v1/instances/${there}/messages?agent=alpha`))).status).toBe(200);
  });
});

describe('cluster: the accepting node’s records of its events', () => {
  test('an event run by another node is done where it was accepted, waited for or not or no longer, and a retry under its key gets its reply at once', async () => {
    const { counterFile, a, b } = await twoNodes();
    // Instance keys whose partition nb owns: their turns run on nb, whatever node accepts them.
    const [waited, unwaited, late] = keysOwnedBy('nb', 'rec');
    if (waited === undefined || unwaited === undefined || late === undefined) throw new Error('fewer than three instance keys owned by nb among 200');

    const first = await a.send({ input: 'count w1', instanceKey: waited, idempotencyKey: 'waited-1' });
    expect(first).toMatchObject({ status: 200, body: { status: 'ok', output: 'done w1' } });
    const eventId = String(first.body.eventId);
    expect(await record(a, eventId)).toMatchObject({ status: 200, body: { status: 'done', reply: { status: 'ok', output: 'done w1' } } });
    const started = performance.now();
    const retry = await a.api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'count w1', instanceKey: waited, idempotencyKey: 'waited-1', timeoutMs: 20_000 }) });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toMatchObject({ eventId, status: 'ok', output: 'done w1' });
    // From the record, not a turn's wait: well under the 20 s it waited out before.
    expect(performance.now() - started).toBeLessThan(10_000);

    const sent = await a.send({ input: 'count u1', instanceKey: unwaited, wait: false });
    expect(sent.status).toBe(202);
    const done = await waitFor(
      `event ${String(sent.body.eventId)} (run on nb) shown done on na`,
      () => record(a, String(sent.body.eventId)),
      (found) => found.body.status === 'done',
    );
    expect(done.body).toMatchObject({ agent: 'alpha', instanceKey: unwaited, reply: { status: 'ok', output: 'done u1' } });
    // A poll behind a load balancer may reach another node: it asks the one holding the record.
    expect(await retriedWhileUnavailable(() => record(b, String(sent.body.eventId)))).toMatchObject({ status: 200, body: { status: 'done', reply: { output: 'done u1' } } });
    expect((await retriedWhileUnavailable(() => record(b, 'evt_neverAccepted0000'))).status).toBe(404);

    // A caller that stopped waiting is told to look the event up: the record gets the late reply.
    const gate = gates.path('late');
    const timedOut = await a.send({ input: `held s1 ${gate}`, instanceKey: late, timeoutMs: 500 });
    expect(timedOut).toMatchObject({ status: 504, body: { error: { code: 'AGENT_REQUEST_TIMEOUT' } } });
    gates.release(gate);
    const lateDone = await waitFor(
      `event ${String(timedOut.body.eventId)} (run on nb, its caller gone) shown done on na`,
      () => record(a, String(timedOut.body.eventId)),
      (found) => found.body.status === 'done',
    );
    expect(lateDone.body).toMatchObject({ reply: { status: 'ok', output: 'done s1' } });
    expect(executionsOf(counterFile, ['w1', 'u1', 's1'])).toEqual(new Map([['w1', 1], ['u1', 1], ['s1', 1]]));
  });

  test('an event the cluster refused is not shown as accepted; a retry under its key once NATS is back runs it once, under its id', async () => {
    // Its own nats-server: this test stops it.
    const { nats, counterFile } = await cluster();
    const node = await startNode(nats, counterFile, 'n1');
    expect(await node.send({ input: 'count warm', instanceKey: 'r1' })).toMatchObject({ status: 200, body: { output: 'done warm' } });

    await nats.kill9();
    const refused = await node.send({ input: 'count r1', instanceKey: 'r1', idempotencyKey: 'refused-1', timeoutMs: 20_000 });
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'CLUSTER_UNAVAILABLE' } } });
    const refusedId = String((refused.body.error as { details?: { eventId?: unknown } }).details?.eventId);
    expect(refusedId).toMatch(/^evt_/);
    expect((await record(node, refusedId)).status).toBe(404);
    // Without a key it gets as far as JetStream, which does not answer: not shown as accepted either.
    const keyless = await node.send({ input: 'count r2', instanceKey: 'r1', timeoutMs: 20_000 });
    expect(keyless).toMatchObject({ status: 503, body: { error: { code: 'CLUSTER_UNAVAILABLE' } } });
    expect((await record(node, String((keyless.body.error as { details?: { eventId?: unknown } }).details?.eventId))).status).toBe(404);

    await nats.restart();
    const retry = await waitFor(
      'a retry under the refused key accepted once NATS is back',
      () => node.send({ input: 'count r1', instanceKey: 'r1', idempotencyKey: 'refused-1', timeoutMs: 20_000 }),
      (answer) => answer.status !== 503,
    );
    expect(retry).toMatchObject({ status: 200, body: { eventId: refusedId, status: 'ok', output: 'done r1' } });
    expect(await record(node, refusedId)).toMatchObject({ status: 200, body: { status: 'done' } });
    expect(counterExecutions(counterFile).get('r1')).toBe(1);
  });
});

describe('cluster: an Idempotency-Key holds for the whole cluster', () => {
  test('a retry through another node (also at the same moment, also of an event not waited for) answers with the first event, which runs once', async () => {
    const { counterFile, a, b } = await twoNodes();
    const post = (node: Daemon, body: Record<string, unknown>) =>
      node.api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ timeoutMs: 20_000, ...body }) });

    const first = await a.send({ input: 'count d1', instanceKey: 'idem-1', idempotencyKey: 'key-d1' });
    expect(first).toMatchObject({ status: 200, body: { output: 'done d1' } });
    const retry = await post(b, { input: 'count d1', instanceKey: 'idem-1', idempotencyKey: 'key-d1' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toMatchObject({ eventId: first.body.eventId, status: 'ok', output: 'done d1' });
    // The key for another input, through the other node: refused, not answered with d1's reply.
    const reused = await post(b, { input: 'count other', instanceKey: 'idem-1', idempotencyKey: 'key-d1' });
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });

    // Not waited for on na; a retry through nb waits for it there.
    const sent = await a.send({ input: 'slow d2', instanceKey: 'idem-2', idempotencyKey: 'key-d2', wait: false });
    expect(sent.status).toBe(202);
    const waited = await post(b, { input: 'slow d2', instanceKey: 'idem-2', idempotencyKey: 'key-d2' });
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ eventId: sent.body.eventId, status: 'ok', output: 'done d2' });

    // Both nodes at once: one claim wins, the other answers with its event.
    const both = await Promise.all([post(a, { input: 'count d3', instanceKey: 'idem-3', idempotencyKey: 'key-d3' }), post(b, { input: 'count d3', instanceKey: 'idem-3', idempotencyKey: 'key-d3' })]);
    const bodies = (await Promise.all(both.map((response) => response.json()))) as Array<Record<string, unknown>>;
    expect(both.map((response) => response.status)).toEqual([200, 200]);
    expect(bodies.map((body) => body.output)).toEqual(['done d3', 'done d3']);
    expect(bodies[0]?.eventId).toBe(bodies[1]?.eventId);

    // `other` (the reused key) never ran.
    expect(executionsOf(counterFile, ['d1', 'd2', 'd3', 'other'])).toEqual(new Map([['d1', 1], ['d2', 1], ['d3', 1]]));
  });
});

describe('cluster: a streamed request', () => {
  test('streams the runtime events of its whole trace from the nodes that run it, not the reply alone; the trace views show all of it', async () => {
    const { nats, counterFile } = await cluster();
    const ids = ['na', 'nb', 'nc'];
    const nodes = await Promise.all(ids.map((id) => startNode(nats, counterFile, id)));
    const [a] = nodes;
    if (!a) throw new Error('no node na');
    await spreadOver(ids.map((id, i) => [id, nodes[i] as Daemon]));
    // alpha's instance on nb, the beta it asks (same instance key) on nc: the caller waits on na.
    const ownerOf = (agent: string, key: string) => rendezvousOwner(partitionOf({ agent, instanceKey: key }, PARTITIONS), ids);
    const key = Array.from({ length: 500 }, (_, i) => `t${i}`).find((k) => ownerOf('alpha', k) === 'nb' && ownerOf('beta', k) === 'nc');
    if (key === undefined) throw new Error('no instance key with alpha on nb and beta on nc among 500');

    const response = await a.api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'ask s1', instanceKey: key, stream: true, timeoutMs: 20_000 }) });
    expect(response.status).toBe(200);
    const frames = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.trim() !== '')
      .map((frame) => {
        const event = /^event: (.+)$/m.exec(frame)?.[1] ?? '';
        const data = JSON.parse(/^data: (.+)$/m.exec(frame)?.[1] ?? '{}') as Record<string, unknown>;
        return { event, agent: data.agentName, data };
      });
    const seen = (agent: string) => frames.filter((frame) => frame.agent === agent).map((frame) => frame.event);
    expect(seen('alpha')).toEqual(expect.arrayContaining(['turn.started', 'tool.called', 'tool.completed', 'step.delta', 'turn.completed']));
    // beta ran on a third node, asked from nb: its events came too.
    expect(seen('beta')).toEqual(expect.arrayContaining(['turn.started', 'step.delta', 'turn.completed']));
    const last = frames.at(-1);
    expect(last).toMatchObject({ event: 'reply', data: { status: 'ok', output: 'alpha got: beta got: echo s1' } });
    // One trace: the request's.
    const traceId = String(last?.data.traceId);
    expect(new Set(frames.filter((frame) => frame.event !== 'reply').map((frame) => frame.data.traceId))).toEqual(new Set([traceId]));

    // The studio's trace views on the caller's node: both agents' parts, from nb's and nc's files.
    const trace = await waitFor(
      `trace ${traceId} with both agents' turns on na`,
      async () => (await (await a.api(`/v1/traces/${traceId}`)).json()) as { events?: Array<{ type: string; agentName: string }> },
      (body) => (body.events ?? []).filter((event) => event.type === 'turn.completed').length === 2,
    );
    expect(new Set(trace.events?.map((event) => event.agentName))).toEqual(new Set(['alpha', 'beta']));
    // The list is gathered from the nodes, each given a moment to answer: a starved nb may miss one gathering.
    const listed = await waitFor(
      `trace ${traceId} in the trace list on na`,
      async () => ((await (await a.api('/v1/traces')).json()) as { traces: Array<{ traceId: string; agent: string; agents: string[]; turns: number; status: string }> }).traces,
      (traces) => traces.some((summary) => summary.traceId === traceId),
    );
    expect(listed.find((summary) => summary.traceId === traceId)).toMatchObject({ agent: 'alpha', turns: 2, status: 'ok' });
  });
});

describe('cluster: deleting an instance', () => {
  test('on any node stops it and deletes its state on every node and in the cluster’s store, so nothing can restore it', async () => {
    const { nats, a, b } = await twoNodes();
    const key = keyOnB('gone');
    const historyHolds = async (text: string) => [...(await auditCluster(nats.url, 'cluster')).histories.values()].some((history) => history.includes(`user: ${text}`));
    expect(await a.send({ input: 'remember apples', instanceKey: key })).toMatchObject({ status: 200 });
    await waitFor('the conversation stored in the cluster', () => historyHolds('remember apples'), (held) => held);

    // Asked on na; the instance runs on nb.
    const response = await a.api(`/v1/instances/${key}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { stopped: number; deleted: string[]; nodes: string[] };
    expect(body.stopped).toBe(1);
    expect(body.nodes).toEqual(['na', 'nb']);
    expect(body.deleted.some((path) => path.startsWith('nb:'))).toBe(true);
    // The snapshot a takeover would restore is gone too.
    expect(await historyHolds('remember apples')).toBe(false);

    expect(await a.send({ input: 'afresh', instanceKey: key })).toMatchObject({ status: 200 });
    const messages = (await (await b.api(`/v1/instances/${key}/messages?agent=alpha`)).json()) as { messages: Array<{ data: { role: string; content: unknown } }> };
    const said = messages.messages.filter((message) => message.data.role === 'user').map((message) => message.data.content);
    expect(said).toEqual(['afresh']);
  });

  test('events still queued for it are given up where they wait: their callers and the accepting node’s records say INSTANCE_DELETED, and none runs later', async () => {
    const { counterFile, a, b } = await twoNodes();
    const key = keyOnB('queued');
    const errorCode = (body: Record<string, unknown>) => (body.error as { code?: string } | undefined)?.code;
    // Accepted on na, run on nb: a turn that holds the instance until its gate opens, one caller waiting behind it, one not waiting.
    const gate = gates.path('queued');
    const running = a.send({ input: `held one ${gate}`, instanceKey: key });
    await waitFor('the slow turn to run its tool on nb', () => counterExecutions(counterFile).get('one') ?? 0, (n) => n === 1);
    const waiting = a.send({ input: 'count two', instanceKey: key });
    const unwaited = await a.send({ input: 'count three', instanceKey: key, wait: false });
    expect(unwaited.status).toBe(202);
    // In nb's inbox behind the running one (an event still on its way would run on the new instance instead).
    const queuedOnB = async () => ((await a.processes()).find((row) => row.instanceKey === key && row.node === 'nb')?.queued ?? 0) as number;
    await waitFor('both events in nb’s inbox', queuedOnB, (queued) => queued === 3);

    // The delete lets the running turn finish (it drains), then gives up what waits behind it.
    const deleting = a.api(`/v1/instances/${key}`, { method: 'DELETE' });
    await b.waitForLog(`alpha:${key} draining for the delete`, (line) => line.msg === 'draining' && line.agent === 'alpha' && line.instanceKey === key);
    gates.release(gate);
    const response = await deleting;
    const body = (await response.json()) as { discarded: string[] };
    expect(response.status).toBe(200);
    expect(body.discarded).toHaveLength(2);
    expect(body.discarded).toContain(String(unwaited.body.eventId));

    expect((await running).body).toMatchObject({ status: 'ok', output: 'done one' });
    const told = await waiting;
    expect({ status: told.status, code: errorCode(told.body) }).toEqual({ status: 410, code: 'INSTANCE_DELETED' });
    const dead = await waitFor('the accepting node to record the unwaited event given up', () => record(a, String(unwaited.body.eventId)), (r) => r.body.status === 'dead');
    expect(dead.body.code).toBe('INSTANCE_DELETED');

    expect(await a.send({ input: 'count four', instanceKey: key })).toMatchObject({ status: 200, body: { output: 'done four' } });
    expect(Object.fromEntries(executionsOf(counterFile, ['one', 'two', 'three', 'four']))).toEqual({ one: 1, four: 1 });
  });

  test('an event given up for the delete stays dead where it was accepted when the owner’s error reply for its caller gets there before the notice', async () => {
    const { nats, counterFile, a, b } = await twoNodes();
    const key = keyOnB('order');
    const gate = gates.path('order');
    const running = a.send({ input: `held first ${gate}`, instanceKey: key });
    await waitFor('the slow turn to run its tool on nb', () => counterExecutions(counterFile).get('first') ?? 0, (n) => n === 1);
    // Waited for on na: nb answers its caller with an error reply besides the notice.
    const body = { input: 'count second', instanceKey: key, idempotencyKey: 'order-second' };
    const waiting = a.send(body);
    const queuedOnB = async () => ((await a.processes()).find((row) => row.instanceKey === key && row.node === 'nb')?.queued ?? 0) as number;
    await waitFor('the event in nb’s inbox behind the held turn', queuedOnB, (queued) => queued === 2);
    // Its id: a retry under its key that does not wait answers with it.
    const again = await a.send({ ...body, wait: false });
    expect(again.status).toBe(202);
    const eventId = String(again.body.eventId);

    await ownerErrorReply(nats, 'na', eventId, `instance '${key}' of agent 'alpha' was deleted before this event ran`);
    // The delete: nb gives the event up, and its notice and reply follow.
    const deleting = a.api(`/v1/instances/${key}`, { method: 'DELETE' });
    await b.waitForLog(`alpha:${key} draining for the delete`, (line) => line.msg === 'draining' && line.agent === 'alpha' && line.instanceKey === key);
    gates.release(gate);
    expect((await deleting).status).toBe(200);
    expect((await running).body).toMatchObject({ status: 'ok', output: 'done first' });
    expect(await waiting).toMatchObject({ status: 410, body: { error: { code: 'INSTANCE_DELETED' } } });

    expect(await record(a, eventId)).toMatchObject({ status: 200, body: { status: 'dead', code: 'INSTANCE_DELETED' } });
    expect(await a.send(body)).toMatchObject({ status: 410, body: { eventId, error: { code: 'INSTANCE_DELETED' } } });
    expect(executionsOf(counterFile, ['second']).size).toBe(0);
  });
});

/**
 * The error reply an owner sends the node whose caller waits for an event it gave up, as that node
 * sent it (routing/requester-replies.ts), to the node's reply subject — ahead of the notice: each
 * is sent again on its own while unanswered, so a reply sent again can get there first.
 */
async function ownerErrorReply(nats: NatsServer, node: string, eventId: string, why: string): Promise<void> {
  const nc = await connect({ servers: nats.url });
  try {
    const reply = makeReplyEvent('corr_of_the_waiting_caller', ORCHESTRATOR_SOURCE, failureOutcome(runtimeError('INSTANCE_DELETED', why)));
    reply.metadata = { ...reply.metadata, [SETTLED_EVENT_KEY]: eventId };
    // Answered once that node has handed it on (remote-replies.ts).
    await nc.request(new ClusterNames('cluster').nodeReplies(node), JSON.stringify(reply), { timeout: 5_000 });
  } finally {
    await nc.close();
  }
}

describe('cluster: a connector’s redelivery', () => {
  test('the same delivery id twice at once, or through another node’s webhook, runs no second turn and gets the first reply', async () => {
    const { nats } = await cluster();
    const secret = 'hook-secret-cluster';
    const start = (nodeId: string) =>
      startDaemon(CONNECTORS_BUNDLE, { env: { GOONDAN_WARM_POOL: '0', WEBHOOK_PORT: '0', HOOK_SECRET: secret }, args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', '15'] });
    const [a, b] = [await start('na'), await start('nb')];
    cleanups.push(() => a.cleanup(), () => b.cleanup());
    const hookOf = async (node: Daemon) => String((await node.waitForLog('webhook listening', (line) => line.msg === 'webhook listening')).url);
    const deliver = async (hook: string, deliveryId: string) => {
      const body = JSON.stringify({ text: 'first delivery', properties: { channel: 'support', user: 'dup' } });
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const response = await fetch(`${hook}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goondan-signature': signature, 'x-github-delivery': deliveryId }, body });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    // Two deliveries of one id at once on one node, then a redelivery the load balancer sends to the other.
    const [first, twin] = await Promise.all([deliver(await hookOf(a), 'gh-cluster-1'), deliver(await hookOf(a), 'gh-cluster-1')]);
    expect(first).toMatchObject({ status: 200, body: { output: 'desk got: first delivery' } });
    expect(twin).toEqual(first);
    expect(await deliver(await hookOf(b), 'gh-cluster-1')).toEqual(first);
    const inputs = async () =>
      [...(await auditCluster(nats.url, 'helpdesk')).histories.values()].flat().filter((line) => line === 'user: first delivery').length;
    await waitFor('the turn stored in the cluster', inputs, (count) => count >= 1);
    expect(await inputs()).toBe(1);
  });
});
