/**
 * Supervision with real processes: crash isolation and respawn with redelivery, the crash-loop
 * backoff schedule, graceful SIGTERM during a turn, and the durable inbox across a daemon crash.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, REPO_ROOT, pidAlive, readRuntimeEvents, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons: Daemon[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) {
    await d.stop('SIGKILL');
    d.cleanup();
  }
});

async function pidOf(daemon: Daemon, agent: string, instanceKey: string): Promise<number> {
  const row = (await daemon.processes()).find((p) => p.agent === agent && p.instanceKey === instanceKey);
  return Number(row?.pid ?? 0);
}

describe('crash isolation and respawn', () => {
  test('kill -9 of one agent mid-turn: others untouched, the agent respawns and the turn is redelivered', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    await daemon.send({ input: 'warm up', agent: 'beta', instanceKey: 'k' });
    const betaPid = await pidOf(daemon, 'beta', 'k');
    const pending = daemon.send({ input: 'sleep 1500', instanceKey: 'k' });
    await waitUntil(async () => (await daemon.processes()).some((p) => p.agent === 'alpha' && p.status === 'processing'), 10_000, 'alpha processing');
    const victim = await pidOf(daemon, 'alpha', 'k');
    process.kill(victim, 'SIGKILL');
    const { body } = await pending;
    expect(body).toMatchObject({ status: 'ok', output: 'slept 1500 ms' });
    const respawned = await pidOf(daemon, 'alpha', 'k');
    expect(respawned).toBeGreaterThan(0);
    expect(respawned).not.toBe(victim);
    expect(await pidOf(daemon, 'beta', 'k')).toBe(betaPid);
    // Redelivery resumes the turn; the conversation holds the input exactly once.
    const base = readFileSync(instancePaths(daemon.stateRoot, 'e2e', 'alpha', 'k').baseMessages, 'utf8');
    expect(base.split('sleep 1500').length - 1).toBe(1);
  });

  test('the crash-loop backoff schedule: five immediate respawns, then base·2^(n−6)', async () => {
    const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_BACKOFF_BASE_MS: '100', GOONDAN_BACKOFF_MAX_MS: '400' } });
    daemons.push(daemon);
    await daemon.send({ input: 'hello crashy', agent: 'crashy', instanceKey: 'loop', wait: false });
    await waitUntil(() => daemon.logs.filter((l) => l.msg === 'process crashed; respawning' && l.process === 'crashy:loop').length >= 9, 30_000, 'nine crashes');
    const crashes = daemon.logs.filter((l) => l.msg === 'process crashed; respawning' && l.process === 'crashy:loop');
    expect(crashes.slice(0, 9).map((l) => l.backoffMs)).toEqual([0, 0, 0, 0, 0, 100, 200, 400, 400]);
    expect(crashes.slice(0, 9).map((l) => l.consecutiveCrashes)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(daemon.logs.some((l) => l.msg === 'crashLoopBackOff' && l.process === 'crashy:loop')).toBe(true);
    // The other agents are unaffected and the API stays responsive.
    const { body } = await daemon.send({ input: 'still fine?', instanceKey: 'other' });
    expect(body.output).toBe('alpha got: still fine?');
  });

  test('a poison event that crashes its agent three times is dead-lettered and answered with AGENT_CRASHED', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
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
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    const { body } = await daemon.send({ input: 'restart yourself', instanceKey: 'r' });
    expect(body.output).toBe('restarting');
    const before = Number(daemon.logs.find((l) => l.msg === 'process ready' && l.process === 'alpha:r')?.childPid);
    await daemon.waitForLog((l) => l.msg === 'agent requested a restart' && l.process === 'alpha:r');
    await waitUntil(async () => {
      const pid = await pidOf(daemon, 'alpha', 'r');
      return pid > 0 && pid !== before;
    }, 15_000, 'a new alpha process');
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
    const pending = daemon.send({ input: 'sleep 1200', instanceKey: 's' });
    await waitUntil(async () => (await daemon.processes()).some((p) => p.agent === 'alpha' && p.status === 'processing'), 10_000, 'alpha processing');
    const rows = await daemon.processes();
    const pids = rows.map((p) => Number(p.pid)).filter((p) => p > 0);
    expect(rows.filter((p) => p.kind === 'agent').length).toBe(2);
    expect(rows.some((p) => p.kind === 'pool')).toBe(true);
    const exitCode = daemon.stop('SIGTERM');
    const { body } = await pending;
    expect(body).toMatchObject({ status: 'ok', output: 'slept 1200 ms' });
    expect(await exitCode).toBe(0);
    expect(daemon.logs.filter((l) => l.msg === 'shutdown acknowledged').length).toBe(2);
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
  });

  test('a caller waiting on an agent that stops for good gets DAEMON_STOPPING at once instead of blocking the drain', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    // alpha:q and gamma:q both ask beta:q; beta runs alpha's request, gamma's waits in its queue.
    const first = daemon.send({ input: 'ask beta sleep 1500', instanceKey: 'q' });
    await waitUntil(async () => (await daemon.processes()).some((p) => p.agent === 'beta' && p.status === 'processing'), 10_000, 'beta busy');
    const second = daemon.send({ input: 'ask beta sleep 10', agent: 'gamma', instanceKey: 'q' });
    await waitUntil(() => daemon.logs.some((l) => l.msg === 'event routed' && l.from === 'gamma'), 10_000, "gamma's request routed");
    const started = Date.now();
    expect(await daemon.stop('SIGTERM')).toBe(0);
    // Well inside the fixture's 20 s grace period: nobody waited out a timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    await Promise.allSettled([first, second]);
    const gamma = await readRuntimeEvents(daemon.stateRoot, 'e2e', 'gamma', 'q');
    const failed = gamma.find((e) => e.type === 'tool.failed' && e.toolName === 'agents__request');
    expect(failed?.error).toMatchObject({ code: 'DAEMON_STOPPING', message: expect.stringContaining("agent 'beta' stopped (the swarm is shutting down)") });
  });

  test('children notice a killed orchestrator and exit; unacked events are redelivered by the next run', async () => {
    const stateRoot = tempStateRoot();
    const first = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(first);
    await first.send({ input: 'sleep 3000', instanceKey: 'durable', wait: false });
    await waitUntil(async () => (await first.processes()).some((p) => p.agent === 'alpha' && p.status === 'processing'), 10_000, 'alpha processing');
    const childPid = await pidOf(first, 'alpha', 'durable');
    await first.stop('SIGKILL');
    await waitUntil(() => !pidAlive(childPid), 10_000, 'orphaned agent to exit');
    const second = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(second);
    const base = instancePaths(stateRoot, 'e2e', 'alpha', 'durable').baseMessages;
    await waitUntil(() => {
      try {
        return readFileSync(base, 'utf8').includes('slept 3000 ms');
      } catch {
        return false;
      }
    }, 20_000, 'redelivered turn to finish');
    expect(readFileSync(base, 'utf8').split('sleep 3000').length - 1).toBe(1);
  });
});
