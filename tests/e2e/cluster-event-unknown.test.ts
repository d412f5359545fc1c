/**
 * Cluster mode, with a real `nats-server -js`: what a node says of an event another node accepted
 * when it cannot hear that node. `GET /v1/events/{id}` and a retry under the event's
 * Idempotency-Key answer 503 CLUSTER_UNAVAILABLE "unknown here, retry" — while NATS is away, when
 * the accepting node is dead, and while it is stopped gracefully (SIGTERM: before, it left the
 * membership and its events were 404 elsewhere) — never 404 "no accepted event" or "the cluster did
 * not accept the event": a poller believing those sends the event again under a new key, and it
 * runs twice. An id no node knows, with every node answering, is still 404. And an event that
 * ends while its accepting node is away is settled in that node's ledger once it is back, however
 * long it was away (kept-outcomes.ts): before, the outcome was sent to it for a minute only.
 * A node killed and started again on its disk under another id (the default id changes with every
 * start) answers for its earlier self's events, and forgets that self's record once it has been
 * silent for a lease timeout: before, an id nobody accepted stayed 503 for good, naming it.
 * And an event whose owner dies after its turn was stored, while its accepting node had not taken
 * its outcome yet, is settled too: the owner acks the event only once the outcome is handed off, so
 * the next owner runs it again, finds the turn finished and tells the outcome. Before, the ack went
 * with the stored turn: the outcome was nowhere and the event stayed `running` for good.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import { auditCluster, counterExecutions } from './cluster-audit.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';
import { holdGates } from './hold-gates.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function record(node: Daemon, eventId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await node.api(`/v1/events/${eventId}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const gates = holdGates();

/** Outcomes kept in the cluster for nodes that did not take them (kept-outcomes.ts); 0 before the stream exists. */
async function keptOutcomes(url: string): Promise<number> {
  const nc = await connect({ servers: url });
  try {
    const info = await (await jetstreamManager(nc)).streams.info('GDN_cluster_OUTCOMES').catch(() => undefined);
    return info?.state.messages ?? 0;
  } finally {
    await nc.close();
  }
}

const errorOf = (body: Record<string, unknown>) => (body.error ?? {}) as { code?: string; message?: string; details?: unknown };

/** A NATS server, and nodes of the e2e swarm on it (`stateRoot`: back on an earlier node's disk). */
async function cluster(prefix: string, leaseSeconds = 15) {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const counterFile = join(dir, 'counter.jsonl');
  const start = async (nodeId: string, stateRoot?: string) => {
    const daemon = await startDaemon(BUNDLE, {
      ...(stateRoot ? { stateRoot } : {}),
      env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: counterFile },
      // Long by default: nothing here is about a takeover.
      args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', String(leaseSeconds)],
    });
    cleanups.push(() => daemon.cleanup());
    return daemon;
  };
  return { nats, counterFile, start };
}

/** An instance key whose partition `node` owns among `nodes`. */
function keyOwnedBy(node: string, nodes: string[]): string {
  const [key] = Array.from({ length: 200 }, (_, i) => `u${i}`).filter((k) => rendezvousOwner(partitionOf({ agent: 'alpha', instanceKey: k }, PARTITIONS), nodes) === node);
  if (key === undefined) throw new Error(`no instance key owned by ${node} among 200`);
  return key;
}

describe('cluster: an event accepted by a node this one cannot hear', () => {
  test('is "unknown, retry" (503), not "not accepted" (404), while its accepting node is stopped gracefully, while NATS is away and once its accepting node is dead', async () => {
    const { nats, counterFile, start } = await cluster('goondan-cluster-unknown-');
    const na = await start('na');
    let nb = await start('nb');
    await spreadOver([['na', na], ['nb', nb]]);
    // Run on na, accepted by nb: nb's ledger holds the records.
    const key = keyOwnedBy('na', ['na', 'nb']);

    // nb stopped gracefully while an event it accepted is held on na: nb's ledger holds its record.
    const gate = gates.path('departed');
    const held = await nb.send({ input: `held u2 ${gate}`, instanceKey: key, idempotencyKey: 'departed-1', wait: false });
    expect(held.status).toBe(202);
    const heldId = String(held.body.eventId);
    await waitFor('the held call running on na', () => counterExecutions(counterFile).get('u2') ?? 0, (runs) => runs === 1);
    expect(await nb.stop('SIGTERM')).toBe(0);
    const departed = await na.api(`/v1/events/${heldId}`);
    const departedError = errorOf((await departed.json()) as Record<string, unknown>);
    expect({ status: departed.status, code: departedError.code, retryAfter: departed.headers.get('retry-after') !== null }).toEqual({ status: 503, code: 'CLUSTER_UNAVAILABLE', retryAfter: true });
    expect(departedError.message).toContain('stopped gracefully and not back: nb');
    expect(departedError.details).toEqual({ eventId: heldId, silent: ['nb'], departed: ['nb'] });
    // Documented: while a node that left with records is away, an id nobody accepted is "unknown" too.
    expect((await record(na, 'evt_neverAccepted0000')).status).toBe(503);
    const keyedRetry = await na.send({ input: `held u2 ${gate}`, instanceKey: key, idempotencyKey: 'departed-1', wait: false });
    expect({ status: keyedRetry.status, code: errorOf(keyedRetry.body).code }).toEqual({ status: 503, code: 'CLUSTER_UNAVAILABLE' });
    expect(errorOf(keyedRetry.body).message).toContain('accepted by node nb');
    // Back on its disk: nb answers for its events again, and the departure is over.
    nb = await start('nb', nb.stateRoot);
    expect(await record(na, heldId)).toMatchObject({ status: 200, body: { eventId: heldId } });
    gates.release(gate);
    await waitFor(`event ${heldId} done, seen through na`, () => record(na, heldId), (found) => found.body.status === 'done');
    expect(counterExecutions(counterFile).get('u2')).toBe(1);

    const first = await nb.send({ input: 'count u1', instanceKey: key, idempotencyKey: 'unknown-1' });
    expect(first).toMatchObject({ status: 200, body: { status: 'ok', output: 'done u1' } });
    const eventId = String(first.body.eventId);
    expect(await record(na, eventId)).toMatchObject({ status: 200, body: { status: 'done' } });
    expect((await record(na, 'evt_neverAccepted0000')).status).toBe(404);

    // NATS away: na cannot ask nb.
    await nats.kill9();
    const cutOff = await record(na, eventId);
    expect({ status: cutOff.status, code: errorOf(cutOff.body).code }).toEqual({ status: 503, code: 'CLUSTER_UNAVAILABLE' });
    expect(errorOf(cutOff.body).message).toContain('unknown');
    await nats.restart();
    for (const node of [na, nb]) await waitFor('/readyz 200 once NATS is back', async () => (await node.api('/readyz')).status, (status) => status === 200);
    await waitFor(`event ${eventId} found through na again`, () => record(na, eventId), (found) => found.status === 200);

    // nb killed: it may hold the record (and it did accept the event).
    nb.proc.kill('SIGKILL');
    await nb.proc.exited;
    const polled = await record(na, eventId);
    expect({ status: polled.status, code: errorOf(polled.body).code }).toEqual({ status: 503, code: 'CLUSTER_UNAVAILABLE' });
    expect(errorOf(polled.body).message).toContain('nb');
    expect(errorOf(polled.body).details).toEqual({ eventId, silent: ['nb'], departed: [] });
    const retry = await na.send({ input: 'count u1', instanceKey: key, idempotencyKey: 'unknown-1' });
    expect({ status: retry.status, code: errorOf(retry.body).code }).toEqual({ status: 503, code: 'CLUSTER_UNAVAILABLE' });
    expect(errorOf(retry.body).message).toContain(`accepted by node nb`);
    expect(errorOf(retry.body).message).not.toContain('did not accept');
    // Nothing ran again.
    expect(counterExecutions(counterFile).get('u1')).toBe(1);
  }, 240_000);

  test('that ended while its accepting node was away is settled in that node’s ledger once it is back, under another --node-id too, however long it was away; a keyed retry through another node is answered from it', async () => {
    const { nats, counterFile, start } = await cluster('goondan-cluster-away-');
    let na = await start('na');
    const nb = await start('nb');
    await spreadOver([['na', na], ['nb', nb]]);
    const key = keyOwnedBy('na', ['na', 'nb']);
    const gate = gates.path('away');
    const held = await nb.send({ input: `held u3 ${gate}`, instanceKey: key, idempotencyKey: 'away-1', wait: false });
    expect(held.status).toBe(202);
    const heldId = String(held.body.eventId);
    await waitFor('the held call running on na', () => counterExecutions(counterFile).get('u3') ?? 0, (runs) => runs === 1);
    expect(await nb.stop('SIGTERM')).toBe(0);
    gates.release(gate);
    // na cannot tell nb: the outcome is kept for nb's disk. Then na stops too, so nothing is sent
    // again over core NATS — as when nb is away longer than na sends it (a minute).
    await waitFor('the outcome kept for nb', () => keptOutcomes(nats.url), (kept) => kept === 1);
    expect(await na.stop('SIGTERM')).toBe(0);
    // Back on its disk under another id (the default id changes with every start).
    const nb2 = await start('nb2', nb.stateRoot);
    const settled = await waitFor(`event ${heldId} settled on nb2`, () => record(nb2, heldId), (found) => found.body.status === 'done');
    expect(settled.body).toMatchObject({ eventId: heldId, status: 'done', reply: { status: 'ok', output: 'done u3' } });
    expect(await keptOutcomes(nats.url)).toBe(0);
    const retryHere = await nb2.send({ input: `held u3 ${gate}`, instanceKey: key, idempotencyKey: 'away-1' });
    expect(retryHere).toMatchObject({ status: 200, body: { eventId: heldId, status: 'ok', output: 'done u3' } });
    na = await start('na', na.stateRoot);
    // The key was claimed by nb; nb2 is on its disk and answers for it: not 503 until the claim expires.
    const retryThere = await na.send({ input: `held u3 ${gate}`, instanceKey: key, idempotencyKey: 'away-1' });
    expect(retryThere).toMatchObject({ status: 200, body: { eventId: heldId, status: 'ok', output: 'done u3' } });
    expect(counterExecutions(counterFile).get('u3')).toBe(1);
  }, 120_000);

  test('accepted by a node that was killed and started again on its disk under another id: the new node answers for it, and once the old id has been silent for a lease timeout an id nobody accepted is 404 again', async () => {
    const { start } = await cluster('goondan-cluster-killed-', 2);
    const na = await start('na');
    const nb = await start('nb');
    await spreadOver([['na', na], ['nb', nb]]);
    const key = keyOwnedBy('na', ['na', 'nb']);
    const done = await nb.send({ input: 'count u4', instanceKey: key, idempotencyKey: 'killed-1' });
    expect(done).toMatchObject({ status: 200, body: { status: 'ok', output: 'done u4' } });
    const eventId = String(done.body.eventId);
    nb.proc.kill('SIGKILL');
    await nb.proc.exited;
    expect((await record(na, 'evt_neverAccepted0000')).status).toBe(503);

    const nb2 = await start('nb2', nb.stateRoot);
    expect(await record(na, eventId)).toMatchObject({ status: 200, body: { eventId, status: 'done' } });
    const forgotten = await waitFor('an id nobody accepted to be 404 once nb is forgotten', () => record(na, 'evt_neverAccepted0000'), (found) => found.status !== 503, 30_000);
    expect({ status: forgotten.status, code: errorOf(forgotten.body).code }).toEqual({ status: 404, code: 'E_HTTP_UNKNOWN_EVENT' });
    // A retry under its key through na: answered from nb2's records (the claim names nb's disk), not run again.
    const retry = await na.send({ input: 'count u4', instanceKey: key, idempotencyKey: 'killed-1' });
    expect(retry).toMatchObject({ status: 200, body: { eventId, status: 'ok', output: 'done u4' } });
    expect((await record(nb2, eventId)).body).toMatchObject({ status: 'done' });
  }, 120_000);

  test('whose owner died after its turn was stored, before the accepting node had the outcome, is settled: the next owner tells it, the call not run again', async () => {
    const { nats, counterFile, start } = await cluster('goondan-cluster-handoff-', 2);
    const na = await start('na');
    const nb = await start('nb');
    const nc = await start('nc');
    await spreadOver([['na', na], ['nb', nb], ['nc', nc]]);
    const key = keyOwnedBy('na', ['na', 'nb', 'nc']);
    const gate = gates.path('handoff');
    const held = await nb.send({ input: `held u5 ${gate}`, instanceKey: key, wait: false });
    expect(held.status).toBe(202);
    const heldId = String(held.body.eventId);
    await waitFor('the held call running on na', () => counterExecutions(counterFile).get('u5') ?? 0, (runs) => runs === 1);
    // nb takes nothing from now on: na's outcome waits for its receipt (a second), in vain.
    nb.proc.kill('SIGSTOP');
    gates.release(gate);
    await waitFor('the finished turn stored in the cluster', async () => (await auditCluster(nats.url, 'cluster')).answers, (answers) => answers.has('done u5'));
    // Past the ack that went with the stored turn before; within the receipt's second.
    await Bun.sleep(200);
    na.proc.kill('SIGKILL');
    // nb dies too, with what na sent it unread: only the cluster can settle the event now.
    nb.proc.kill('SIGKILL');
    await Promise.all([na.proc.exited, nb.proc.exited]);
    // nc takes na's partitions, runs the event again, finds the turn finished and keeps its outcome for nb's disk
    // (or na kept it, had it got that far).
    await waitFor('the outcome kept for nb', () => keptOutcomes(nats.url), (kept) => kept === 1, 60_000);
    const nb2 = await start('nb2', nb.stateRoot);
    const settled = await waitFor(`event ${heldId} settled on nb2`, () => record(nb2, heldId), (found) => found.body.status === 'done');
    expect(settled.body).toMatchObject({ eventId: heldId, status: 'done', reply: { status: 'ok', output: 'done u5' } });
    expect(counterExecutions(counterFile).get('u5')).toBe(1);
  }, 120_000);
});
