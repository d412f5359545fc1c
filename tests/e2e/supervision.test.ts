/**
 * Supervision with real processes: crash isolation and respawn with redelivery, the crash-loop
 * backoff schedule, graceful SIGTERM during a turn, and the durable inbox across a daemon crash.
 * Turns that must be "running" while a test acts sit in the fixture's `probe__hold` tool until the
 * test releases them, so nothing depends on how fast the machine is.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, REPO_ROOT, daemonsKilledAfterEach, isRunning, readRuntimeEvents, sharedDaemon, startDaemon, tempStateRoot, waitFor, waitForProgress } from './daemon-harness.ts';
import { holdGates } from './hold-gates.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons = daemonsKilledAfterEach();
/** One daemon for the tests that neither stop it nor change its settings; each has instance keys of its own. */
const shared = sharedDaemon(BUNDLE);

const gates = holdGates();
const gatePath = gates.path;
const heldPids = gates.heldPids;
const release = gates.release;

async function pidOf(daemon: Daemon, agent: string, instanceKey: string): Promise<number> {
  const row = (await daemon.processes()).find((p) => p.agent === agent && p.instanceKey === instanceKey);
  return Number(row?.pid ?? 0);
}

function readIfExists(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

describe('crash isolation and respawn', () => {
  test('kill -9 of one agent mid-turn: others untouched, the agent respawns and the turn is redelivered', async () => {
    const daemon = shared();
    await daemon.send({ input: 'warm up', agent: 'beta', instanceKey: 'k' });
    const betaPid = await pidOf(daemon, 'beta', 'k');
    const gate = gatePath('kill');
    const pending = daemon.send({ input: `hold ${gate}`, instanceKey: 'k' });
    const [victim = 0] = await waitFor('alpha:k to be inside its tool call', () => heldPids(gate), (pids) => pids.length === 1);
    process.kill(victim, 'SIGKILL');
    // The redelivered turn runs the interrupted tool call again, in a new process.
    const held = await waitFor('the redelivered turn to reach the tool call again', () => heldPids(gate), (pids) => pids.length === 2);
    release(gate);
    const { body } = await pending;
    expect(body).toMatchObject({ status: 'ok', output: 'released' });
    expect(held[1]).not.toBe(victim);
    expect(await pidOf(daemon, 'alpha', 'k')).toBe(held[1] ?? -1);
    expect(await pidOf(daemon, 'beta', 'k')).toBe(betaPid);
    // Redelivery resumes the turn; the conversation holds the input exactly once.
    const base = readFileSync(instancePaths(daemon.stateRoot, 'e2e', 'alpha', 'k').baseMessages, 'utf8');
    expect(base.split(`hold ${gate}`).length - 1).toBe(1);
  });

  test('the crash-loop backoff schedule: five immediate respawns, then base·2^(n−6)', async () => {
    const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_BACKOFF_BASE_MS: '100', GOONDAN_BACKOFF_MAX_MS: '400' } });
    daemons.push(daemon);
    await daemon.send({ input: 'hello crashy', agent: 'crashy', instanceKey: 'loop', wait: false });
    // Nine process starts in a row: allow each one the full wait, not all nine together.
    const crashes = await waitForProgress(
      'nine crashes of crashy:loop (the crashes so far)',
      () =>
        daemon.logs
          .filter((l) => l.msg === 'process crashed; respawning' && l.process === 'crashy:loop')
          .map((l) => ({ backoffMs: l.backoffMs, consecutiveCrashes: l.consecutiveCrashes })),
      (lines) => lines.length >= 9,
    );
    expect(crashes.slice(0, 9).map((l) => l.backoffMs)).toEqual([0, 0, 0, 0, 0, 100, 200, 400, 400]);
    expect(crashes.slice(0, 9).map((l) => l.consecutiveCrashes)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(daemon.logs.some((l) => l.msg === 'crashLoopBackOff' && l.process === 'crashy:loop')).toBe(true);
    // The other agents are unaffected and the API stays responsive.
    const { body } = await daemon.send({ input: 'still fine?', instanceKey: 'other' });
    expect(body.output).toBe('alpha got: still fine?');
  });

  test('a poison event that crashes its agent three times is dead-lettered and answered with AGENT_CRASHED', async () => {
    const daemon = shared();
    const { body } = await daemon.send({ input: 'crash now', instanceKey: 'poison' });
    expect(body.status).toBe('error');
    expect(body.error).toMatchObject({ code: 'AGENT_CRASHED' });
    // The instance recovers for the next event.
    const next = await daemon.send({ input: 'are you back', instanceKey: 'poison' });
    expect(next.body.output).toBe('alpha got: are you back');
  });
});

describe('self-restart (SPEC.md §2.8)', () => {
  test('an agent that asks for a restart is restarted gracefully after its turn, keeping its history', async () => {
    const daemon = shared();
    const { body } = await daemon.send({ input: 'restart yourself', instanceKey: 'r' });
    expect(body.output).toBe('restarting');
    const before = Number((await daemon.waitForLog('alpha:r ready', (l) => l.msg === 'process ready' && l.process === 'alpha:r')).childPid);
    await daemon.waitForLog('alpha:r asking for a restart', (l) => l.msg === 'agent requested a restart' && l.process === 'alpha:r');
    await waitFor(`a new alpha:r process (the old pid was ${before})`, () => pidOf(daemon, 'alpha', 'r'), (pid) => pid > 0 && pid !== before);
    const next = await daemon.send({ input: 'still me?', instanceKey: 'r' });
    expect(next.body.output).toBe('alpha got: still me?');
    expect(readFileSync(instancePaths(daemon.stateRoot, 'e2e', 'alpha', 'r').baseMessages, 'utf8')).toContain('restart yourself');
  });
});

describe('graceful shutdown (SPEC.md §2.3)', () => {
  test('SIGTERM during a turn: the turn finishes, agents ack, exit 0, no child left behind', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    await daemon.send({ input: 'warm', agent: 'beta', instanceKey: 's' });
    const gate = gatePath('sigterm');
    const pending = daemon.send({ input: `hold ${gate}`, instanceKey: 's' });
    await waitFor('alpha:s to be inside its tool call', () => heldPids(gate), (pids) => pids.length === 1);
    const rows = await waitFor(
      'two agents and a warm pool process in the process table',
      () => daemon.processes(),
      (now) => now.filter((p) => p.kind === 'agent').length === 2 && now.some((p) => p.kind === 'pool' && Number(p.pid) > 0),
    );
    const pids = rows.map((p) => Number(p.pid)).filter((p) => p > 0);
    const exitCode = daemon.stop('SIGTERM');
    // Released only once alpha drains: the turn really was running when the shutdown began.
    await daemon.waitForLog('alpha:s draining', (l) => l.msg === 'draining' && l.agent === 'alpha' && l.instanceKey === 's');
    release(gate);
    const { body } = await pending;
    expect(body).toMatchObject({ status: 'ok', output: 'released' });
    expect(await exitCode).toBe(0);
    expect(daemon.logs.filter((l) => l.msg === 'shutdown acknowledged').length).toBe(2);
    // A killed child may take a moment to be reaped; it must not outlive that.
    await waitFor("every child of the daemon to be gone (pids still there)", () => pids.filter(isRunning), (alive) => alive.length === 0);
  });

  test('SIGHUP (its terminal went away) drains as SIGTERM does; an event sent during the drain is refused, not kept behind the caller’s back', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    const gate = gatePath('sighup');
    const pending = daemon.send({ input: `hold ${gate}`, instanceKey: 'h' });
    await waitFor('alpha:h to be inside its tool call', () => heldPids(gate), (pids) => pids.length === 1);
    // A hangup reaches the terminal's whole process group: the agent gets it too, and must not die of it.
    process.kill(await pidOf(daemon, 'alpha', 'h'), 'SIGHUP');
    const exitCode = daemon.stop('SIGHUP');
    await daemon.waitForLog('alpha:h draining', (l) => l.msg === 'draining' && l.agent === 'alpha' && l.instanceKey === 'h');
    const late = await daemon.api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'too late', instanceKey: 'late', wait: false }) });
    const refused = (await late.json()) as { error?: { code?: string; message?: string } };
    expect({ status: late.status, code: refused.error?.code }).toEqual({ status: 503, code: 'DAEMON_STOPPING' });
    expect(refused.error?.message).toContain('not accepted');
    const readyz = await daemon.api('/readyz');
    expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 503, body: { status: 'stopping' } });
    release(gate);
    expect((await pending).body).toMatchObject({ status: 'ok', output: 'released' });
    expect(await exitCode).toBe(0);
    expect(readdirSync(join(daemon.stateRoot, 'runtime')).filter((name) => name.endsWith('.json'))).toEqual([]);
    // Nothing of the refused event was kept: no instance was made for it.
    expect(existsSync(instancePaths(daemon.stateRoot, 'e2e', 'alpha', 'late').root)).toBe(false);
  });

  test('a caller waiting on an agent that stops for good gets DAEMON_STOPPING at once instead of blocking the drain', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    // alpha:q and gamma:q both ask beta:q; beta runs alpha's request, gamma's waits in its queue.
    const gate = gatePath('unavailable');
    const first = daemon.send({ input: `ask beta hold ${gate}`, instanceKey: 'q' });
    await waitFor("beta:q to be inside its tool call for alpha's request", () => heldPids(gate), (pids) => pids.length === 1);
    const second = daemon.send({ input: 'ask beta sleep 10', agent: 'gamma', instanceKey: 'q' });
    await daemon.waitForLog("gamma's request routed", (l) => l.msg === 'event routed' && l.from === 'gamma');
    const exitCode = daemon.stop('SIGTERM');
    await daemon.waitForLog('beta:q draining', (l) => l.msg === 'draining' && l.agent === 'beta' && l.instanceKey === 'q');
    release(gate);
    expect(await exitCode).toBe(0);
    // Nobody waited out the fixture's 20 s grace period.
    expect(daemon.logs.filter((l) => l.msg === 'grace period over: SIGKILL')).toEqual([]);
    await Promise.allSettled([first, second]);
    const gamma = await readRuntimeEvents(daemon.stateRoot, 'e2e', 'gamma', 'q');
    const failed = gamma.find((e) => e.type === 'tool.failed' && e.toolName === 'agents__request');
    expect(failed?.error).toMatchObject({ code: 'DAEMON_STOPPING', message: expect.stringContaining("agent 'beta' stopped (the swarm is shutting down)") });
  });

  test('children notice a killed orchestrator and exit; unacked events are redelivered by the next run', async () => {
    const stateRoot = tempStateRoot();
    const first = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(first);
    const gate = gatePath('durable');
    await first.send({ input: `hold ${gate}`, instanceKey: 'durable', wait: false });
    const [childPid = 0] = await waitFor('alpha:durable to be inside its tool call', () => heldPids(gate), (pids) => pids.length === 1);
    await first.stop('SIGKILL');
    await waitFor(`the orphaned agent (pid ${childPid}) to exit`, () => isRunning(childPid), (alive) => !alive);
    release(gate);
    const second = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(second);
    const base = instancePaths(stateRoot, 'e2e', 'alpha', 'durable').baseMessages;
    await waitFor("the redelivered turn's answer in the conversation", () => readIfExists(base), (text) => text.includes('"text":"released"'));
    expect(readFileSync(base, 'utf8').split(`hold ${gate}`).length - 1).toBe(1);
    // The interrupted tool call ran again in the second run's process.
    expect(heldPids(gate)).toEqual([childPid, expect.any(Number)]);
    expect(heldPids(gate)[1]).not.toBe(childPid);
  });
});
