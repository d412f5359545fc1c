/**
 * Deleting an instance while events are still queued for it: they go with it. Each is given up
 * with INSTANCE_DELETED — the caller waiting for one is told at once (410), the event ledger says
 * `dead` with that code, a retry under its Idempotency-Key gets the same answer — and none of them
 * runs later on the new, empty instance. One daemon, the mock model; `held X GATE` holds a turn in
 * a counter tool that writes a line per execution until the test opens the gate (`slow X`, 3 s).
 */
import { afterAll, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOONDAN_BIN, REPO_ROOT, startDaemon, tempStateRoot, waitFor, waitUntil, type Daemon } from './daemon-harness.ts';
import { holdGates } from './hold-gates.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/cluster');
const daemons: Daemon[] = [];
const gates = holdGates();
afterAll(async () => {
  for (const d of daemons) {
    await d.stop('SIGKILL').catch(() => 0);
    d.cleanup();
  }
});

function counted(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => String((JSON.parse(line) as { label: string }).label));
}

async function post(daemon: Daemon, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await daemon.api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A daemon whose instance `k` runs `held one` (its tool holds the turn until `gate` opens) by the time this resolves. */
async function busyInstance(gate: string): Promise<{ daemon: Daemon; counter: string; running: Promise<{ status: number; body: Record<string, unknown> }> }> {
  const counter = join(tempStateRoot(), 'counter.jsonl');
  const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_TEST_COUNTER_FILE: counter } });
  daemons.push(daemon);
  const running = post(daemon, { agent: 'alpha', instanceKey: 'k', input: `held one ${gate}`, wait: true, timeoutMs: 60_000 });
  await waitUntil(() => counted(counter).includes('one'), 'the held turn to run its tool');
  return { daemon, counter, running };
}

/** The held turn of `k` lets go once its agent drains for the delete or restart (which waits for the turn). */
async function openOnceDraining(daemon: Daemon, gate: string): Promise<void> {
  await daemon.waitForLog('alpha:k draining', (line) => line.msg === 'draining' && line.agent === 'alpha' && line.instanceKey === 'k');
  gates.release(gate);
}

test('events queued for a deleted instance are given up with INSTANCE_DELETED: told to their callers, kept in the ledger, never run', async () => {
  const gate = gates.path('delete');
  const { daemon, counter, running } = await busyInstance(gate);
  const waiting = post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count two', wait: true, timeoutMs: 60_000 });
  const unwaited = await post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count three', wait: false });
  const keyed = await post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count four', wait: false }, { 'idempotency-key': 'delete-me-4' });
  expect([unwaited.status, keyed.status]).toEqual([202, 202]);
  // The process table shows what waits for the instance: the running event and the three behind it.
  await waitFor('four events queued for the instance', async () => (await daemon.processes()).find((row) => row.instanceKey === 'k')?.queued, (queued) => queued === 4);

  const cli = Bun.spawn([GOONDAN_BIN, 'instance', 'delete', 'k', '--state-root', daemon.stateRoot], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  await openOnceDraining(daemon, gate);
  const [out, code] = [await new Response(cli.stdout).text(), await cli.exited];
  expect({ code, out: out.trim() }).toEqual({ code: 0, out: "deleted instance 'k': 1 process(es) stopped, 1 state directory removed, 3 queued event(s) given up" });

  // The turn that was running finished in the grace period; the one waiting was told, not timed out.
  expect((await running).body).toMatchObject({ status: 'ok', output: 'done one' });
  const told = await waiting;
  expect({ status: told.status, code: (told.body.error as { code?: string } | undefined)?.code }).toEqual({ status: 410, code: 'INSTANCE_DELETED' });

  for (const eventId of [told.body.eventId, unwaited.body.eventId, keyed.body.eventId]) {
    const record = (await (await daemon.api(`/v1/events/${String(eventId)}`)).json()) as Record<string, unknown>;
    expect(record).toMatchObject({ eventId, status: 'dead', code: 'INSTANCE_DELETED' });
  }
  const retried = await post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count four', wait: true }, { 'idempotency-key': 'delete-me-4' });
  expect({ status: retried.status, eventId: retried.body.eventId, code: (retried.body.error as { code?: string } | undefined)?.code }).toEqual({
    status: 410,
    eventId: keyed.body.eventId,
    code: 'INSTANCE_DELETED',
  });

  // The key starts a new conversation, in which none of the given-up events runs.
  const fresh = await post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count five', wait: true });
  expect(fresh.body).toMatchObject({ status: 'ok', output: 'done five' });
  expect(counted(counter)).toEqual(['one', 'five']);
  const history = (await (await daemon.api('/v1/instances/k/messages')).json()) as { messages: Array<{ data: { content: unknown } }> };
  expect(JSON.stringify(history.messages.map((m) => m.data.content))).not.toContain('count two');
});

test('with no daemon running, goondan instance delete gives the queued events up in the ledger too: after the next start they are dead, not queued', async () => {
  const counter = join(tempStateRoot(), 'counter.jsonl');
  const stateRoot = tempStateRoot();
  const first = await startDaemon(BUNDLE, { stateRoot, env: { GOONDAN_TEST_COUNTER_FILE: counter } });
  daemons.push(first);
  void post(first, { agent: 'alpha', instanceKey: 'k', input: 'slow one', wait: true, timeoutMs: 60_000 }).catch(() => undefined);
  await waitUntil(() => counted(counter).includes('one'), 'the slow turn to run its tool');
  const queued = await post(first, { agent: 'alpha', instanceKey: 'k', input: 'count two', wait: false });
  expect(queued.status).toBe(202);
  await first.stop('SIGKILL');

  const cli = Bun.spawn([GOONDAN_BIN, 'instance', 'delete', 'k', '--state-root', stateRoot], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [out, code] = [await new Response(cli.stdout).text(), await cli.exited];
  // The interrupted turn's event and the one behind it.
  expect({ code, out: out.trim() }).toEqual({ code: 0, out: "deleted instance 'k': 1 state directory removed, 2 queued event(s) given up" });

  const again = await startDaemon(BUNDLE, { stateRoot, env: { GOONDAN_TEST_COUNTER_FILE: counter } });
  daemons.push(again);
  const record = (await (await again.api(`/v1/events/${String(queued.body.eventId)}`)).json()) as Record<string, unknown>;
  expect(record).toMatchObject({ status: 'dead', code: 'INSTANCE_DELETED' });
  expect(await post(again, { agent: 'alpha', instanceKey: 'k', input: 'count three', wait: true })).toMatchObject({ status: 200, body: { output: 'done three' } });
  expect(counted(counter)).toEqual(['one', 'three']);
});

test('restart --fresh keeps the queued events: they run, once each, in the new conversation, their callers answered', async () => {
  const gate = gates.path('restart');
  const { daemon, counter, running } = await busyInstance(gate);
  const waiting = post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count two', wait: true, timeoutMs: 60_000 });
  const unwaited = await post(daemon, { agent: 'alpha', instanceKey: 'k', input: 'count three', wait: false });
  await waitFor('three events queued for the instance', async () => (await daemon.processes()).find((row) => row.instanceKey === 'k')?.queued, (queued) => queued === 3);

  const cli = Bun.spawn([GOONDAN_BIN, 'restart', '--instance', 'k', '--fresh', '--yes', '--state-root', daemon.stateRoot], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  await openOnceDraining(daemon, gate);
  const [out, code] = [await new Response(cli.stdout).text(), await cli.exited];
  expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'stopped 1 process(es) and deleted 1 state directory; they start afresh (queued events first)' });

  expect((await running).body).toMatchObject({ status: 'ok', output: 'done one' });
  expect((await waiting).body).toMatchObject({ status: 'ok', output: 'done two' });
  await waitFor('the unwaited event done', async () => ((await (await daemon.api(`/v1/events/${String(unwaited.body.eventId)}`)).json()) as { status: string }).status, (status) => status === 'done');
  expect(counted(counter).sort()).toEqual(['one', 'three', 'two']);
  // The new conversation holds the queued events, not what came before the restart.
  const history = JSON.stringify(((await (await daemon.api('/v1/instances/k/messages')).json()) as { messages: Array<{ data: { content: unknown } }> }).messages.map((m) => m.data.content));
  expect(history).toContain('count two');
  expect(history).toContain('count three');
  expect(history).not.toContain('held one');
});
