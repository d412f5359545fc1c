/**
 * Issue 12, instances that wait are passivated too: an instance whose turn waits for a human
 * approval or another agent's reply longer than `ttlSeconds` has its process stopped (row
 * `passivated`, no pid), stays down while it waits, and the answer wakes it; the resumed turn
 * completes once, with every side effect run once.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, startDaemon, tempStateRoot, waitFor, waitUntil } from './daemon-harness.ts';
import { holdGates } from './hold-gates.ts';

const FIXTURES = resolve(import.meta.dir, '../fixtures/e2e');
const gates = holdGates();
const daemons: Daemon[] = [];
afterEach(() => {
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

async function start(bundle: string, args: string[] = [], env: Record<string, string> = {}): Promise<Daemon> {
  const daemon = await startDaemon(join(FIXTURES, bundle), { stateRoot: tempStateRoot(), args, env });
  daemons.push(daemon);
  return daemon;
}

type Row = Record<string, unknown>;

async function rowOf(daemon: Daemon, agent: string, instanceKey: string): Promise<Row | undefined> {
  return (await daemon.processes()).find((p) => p.agent === agent && p.instanceKey === instanceKey);
}

/** Waits until the instance's row says passivated with no pid, and returns how the daemon logged it. */
async function passivatedWhileWaiting(daemon: Daemon, agent: string, instanceKey: string): Promise<void> {
  await waitFor(`${agent}/${instanceKey} to be passivated while it waits`, () => rowOf(daemon, agent, instanceKey), (row) => row?.status === 'passivated' && row.pid === null);
  expect(daemon.logs.some((l) => l.msg === 'passivating an instance that waits for an approval or a reply' && l.process === `${agent}:${instanceKey}`)).toBe(true);
  // The agent stopped at once, without finishing (or failing) the waiting turn.
  expect(daemon.logs.some((l) => l.msg === 'passivated while the turn waits; it resumes when the answer comes' && l.agent === agent)).toBe(true);
}

async function eventRecord(daemon: Daemon, eventId: string): Promise<Record<string, unknown>> {
  return (await (await daemon.api(`/v1/events/${eventId}`)).json()) as Record<string, unknown>;
}

describe('an instance waiting for a human approval', () => {
  test('is passivated after ttlSeconds, stays down until the decision, then the decision wakes it and the turn completes once', async () => {
    const daemon = await start('waiting-approval', [], { GOONDAN_APPROVALS: 'http' });
    const accepted = await daemon.send({ input: 'write notes.md', instanceKey: 'desk', wait: false });
    const eventId = String(accepted.body.eventId);
    const approvals = async () => ((await (await daemon.api('/v1/approvals')).json()) as { approvals: Array<{ id: string }> }).approvals;
    const [asked] = await waitFor('the write to wait for approval', approvals, (list) => list.length === 1);
    await passivatedWhileWaiting(daemon, 'writer', 'desk');
    // Its unfinished event did not bring it straight back: still down, still asked, nothing written.
    expect(await rowOf(daemon, 'writer', 'desk')).toMatchObject({ status: 'passivated', pid: null });
    expect((await approvals()).map((a) => a.id)).toEqual([asked?.id ?? '']);
    const workspace = instancePaths(daemon.stateRoot, 'waiting-approval', 'writer', 'desk').workdir;
    expect(existsSync(join(workspace, 'notes.md'))).toBe(false);

    const decided = await daemon.api(`/v1/approvals/${asked?.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
    expect(decided.status).toBe(200);
    await waitUntil(async () => (await eventRecord(daemon, eventId)).status === 'done', `event ${eventId} to finish after the approval`, 60_000);
    expect(await eventRecord(daemon, eventId)).toMatchObject({ status: 'done', reply: { status: 'ok', output: 'wrote: notes.md' } });
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('approved content');
    expect(daemon.logs.some((l) => l.msg === 'waking a passivated instance: what it waited for has come' && l.process === 'writer:desk')).toBe(true);
    // One turn for that event: its input is in the history once, and nobody is asked again.
    const base = readFileSync(instancePaths(daemon.stateRoot, 'waiting-approval', 'writer', 'desk').baseMessages, 'utf8');
    expect(base.split('\n').filter((line) => line.includes('"content":"write notes.md"'))).toHaveLength(1);
    expect(await approvals()).toEqual([]);
    // Both model calls are counted: the one made before the passivation too (its step was cut).
    const metrics = await (await daemon.api('/metrics')).text();
    expect(metrics).toContain('goondan_model_calls_total{agent="writer",instance="desk"} 2');
  }, 120_000);
});

describe('an instance waiting for another agent\'s reply', () => {
  test('is passivated while the callee works; the reply wakes it, the callee ran once and the original turn gets its answer', async () => {
    const daemon = await start('chaos', ['-s', 'suspend']);
    const counter = () => {
      const file = join(instancePaths(daemon.stateRoot, 'suspend', 'worker', 'r').workdir, 'counter.jsonl');
      return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter((l) => l !== '') : [];
    };
    // The worker's call goes on only once the gate opens, after the asker was seen passivated.
    const gate = gates.path('worker');
    const accepted = await daemon.send({ input: `ask slowly s1 ${gate}`, instanceKey: 'r', wait: false });
    const eventId = String(accepted.body.eventId);
    await passivatedWhileWaiting(daemon, 'asker', 'r');
    // The callee is still at work: its turn is not the one that waits.
    expect(await rowOf(daemon, 'worker', 'r')).toMatchObject({ status: 'processing' });
    gates.release(gate);

    await waitUntil(async () => (await eventRecord(daemon, eventId)).status === 'done', `event ${eventId} to finish after the worker answered`, 90_000);
    expect(await eventRecord(daemon, eventId)).toMatchObject({ status: 'done', reply: { status: 'ok', output: 'asker got: worked s1' } });
    expect(daemon.logs.some((l) => l.msg === 'waking a passivated instance: what it waited for has come' && l.process === 'asker:r')).toBe(true);
    expect(counter()).toHaveLength(1);
    const workerInputs = readFileSync(instancePaths(daemon.stateRoot, 'suspend', 'worker', 'r').baseMessages, 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"content":"slower s1 ${gate}"`));
    expect(workerInputs).toHaveLength(1);
  }, 120_000);
});
