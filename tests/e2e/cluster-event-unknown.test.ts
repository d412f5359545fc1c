/**
 * Cluster mode, with a real `nats-server -js`: what a node says of an event another node accepted
 * when it cannot hear that node. `GET /v1/events/{id}` and a retry under the event's
 * Idempotency-Key answer 503 CLUSTER_UNAVAILABLE "unknown here, retry" — while NATS is away, when
 * the accepting node is dead, and while it is stopped gracefully (SIGTERM: before, it left the
 * membership and its events were 404 elsewhere) — never 404 "no accepted event" or "the cluster did
 * not accept the event": a poller believing those sends the event again under a new key, and it
 * runs twice. An id no node knows, with every node answering, is still 404.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import { counterExecutions } from './cluster-audit.ts';
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

const errorOf = (body: Record<string, unknown>) => (body.error ?? {}) as { code?: string; message?: string; details?: unknown };

describe('cluster: an event accepted by a node this one cannot hear', () => {
  test('is "unknown, retry" (503), not "not accepted" (404), while its accepting node is stopped gracefully, while NATS is away and once its accepting node is dead', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const dir = mkdtempSync(join(tmpdir(), 'goondan-cluster-unknown-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const counterFile = join(dir, 'counter.jsonl');
    const start = async (nodeId: string, stateRoot?: string) => {
      const daemon = await startDaemon(BUNDLE, {
        ...(stateRoot ? { stateRoot } : {}),
        env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: counterFile },
        // Long: nothing here is about a takeover.
        args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', '15'],
      });
      cleanups.push(() => daemon.cleanup());
      return daemon;
    };
    const na = await start('na');
    let nb = await start('nb');
    await spreadOver([['na', na], ['nb', nb]]);
    // Run on na, accepted by nb: nb's ledger holds the records.
    const [key] = Array.from({ length: 200 }, (_, i) => `u${i}`).filter((k) => rendezvousOwner(partitionOf({ agent: 'alpha', instanceKey: k }, PARTITIONS), ['na', 'nb']) === 'na');
    if (key === undefined) throw new Error('no instance key owned by na among 200');

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
});
