/**
 * Issue 10, "Done when": effects at most once and nothing lost while processes are killed at
 * random. Two agents get ≥ 200 events over ≥ 10 instance keys; every turn makes two calls of a
 * counter tool that appends one line per execution. While they run, agent processes are killed
 * with SIGKILL every ~200 ms (and, in the second test, the daemon itself, restarted on the same
 * state root). Afterwards every accepted event is in exactly one history once, and no tool call
 * ran more than once (an interrupted call shows as E_TOOL_INTERRUPTED, never as a second run).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { instancesDir } from '../../shared/state-paths.ts';
import { auditChaos, type ChaosAudit } from './chaos-audit.ts';
import { type Daemon, startDaemon, tempStateRoot } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/chaos');
const WORKSPACE = 'chaos';
const AGENTS = ['alpha', 'beta'];
const KEYS = Array.from({ length: 12 }, (_, i) => `key-${i}`);
// Crash loops must not push instances into long backoffs during the run.
const ENV = { GOONDAN_BACKOFF_BASE_MS: '100', GOONDAN_BACKOFF_MAX_MS: '1000', GOONDAN_LOG_LEVEL: 'info' };

/** Kills wanted (and of them inside a handler) before the chaos stops; at most CHAOS_MAX_MS after the last send. */
const ENOUGH_KILLS = 24;
const ENOUGH_INSIDE = 4;
const CHAOS_MAX_MS = 30_000;

const daemons: Daemon[] = [];
afterEach(() => {
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

async function start(stateRoot: string): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { stateRoot, env: ENV, args: ['-s', 'chaos'] });
  daemons.push(daemon);
  return daemon;
}

/** POST one event without waiting; the event id when the daemon accepted it (202). */
async function sendCount(daemon: Daemon, index: number): Promise<{ eventId: string; label: string } | undefined> {
  const label = `e${index}`;
  try {
    const { status, body } = await daemon.send({ input: `count ${label}`, agent: AGENTS[index % AGENTS.length], instanceKey: KEYS[Math.floor(index / AGENTS.length) % KEYS.length], wait: false });
    return status === 202 && typeof body.eventId === 'string' ? { eventId: body.eventId, label } : undefined;
  } catch {
    return undefined; // the daemon was killed under this request: not accepted
  }
}

/**
 * The pid of a process whose counter handler is running right now (its line is fresh; the handler
 * lingers 100 ms after writing it), so that some kills land between tool.call.started and finished.
 */
function pidInsideHandler(stateRoot: string): number | undefined {
  const dir = instancesDir(stateRoot, WORKSPACE);
  if (!existsSync(dir)) return undefined;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, 'workspace', 'counter.jsonl');
    try {
      if (Date.now() - statSync(file).mtimeMs > 40) continue;
      const last = readFileSync(file, 'utf8').trimEnd().split('\n').at(-1) ?? '';
      const pid: unknown = JSON.parse(last).pid;
      if (typeof pid === 'number') return pid;
    } catch {
      // no counter yet, or a line being written
    }
  }
  return undefined;
}

interface Killer {
  /** Kills so far, and how many of them landed inside a tool handler. */
  readonly counts: { kills: number; insideHandler: number };
  stop(): Promise<{ kills: number; insideHandler: number }>;
}

/**
 * Every 150–250 ms kills an agent process of `daemon()` that has started (idle or in a turn):
 * every other time one inside a tool handler (unless `aimAtHandlers` is false: a swarm without the
 * counter tool has none to watch for), else a random one. Processes still starting are
 * spared: after a daemon restart all of them are, and on a loaded 2-core machine a cold start of
 * two dozen takes seconds — killing them then would only starve the swarm, never interrupt a call.
 */
function killAgentsAtRandom(stateRoot: string, daemon: () => Daemon | undefined, aimAtHandlers = true): Killer {
  let running = true;
  const counts = { kills: 0, insideHandler: 0 };
  const loop = (async () => {
    while (running) {
      await Bun.sleep(150 + Math.random() * 100);
      const current = daemon();
      if (!current || current.proc.exitCode !== null || current.proc.signalCode !== null) continue;
      try {
        const rows = (await current.processes()).filter((row) => row.kind === 'agent' && (row.status === 'processing' || row.status === 'idle') && typeof row.pid === 'number');
        const pids = rows.map((row) => Number(row.pid));
        let inside: number | undefined;
        // Every other kill watches (≤ 300 ms) for a handler that just started.
        for (let tries = 0; aimAtHandlers && counts.kills % 2 === 0 && inside === undefined && tries < 30; tries++) {
          inside = pidInsideHandler(stateRoot);
          if (inside === undefined) await Bun.sleep(10);
        }
        const victim = inside !== undefined && pids.includes(inside) ? inside : pids[Math.floor(Math.random() * pids.length)];
        if (victim !== undefined) {
          process.kill(victim, 'SIGKILL');
          counts.kills += 1;
          if (victim === inside) counts.insideHandler += 1;
        }
      } catch {
        // the daemon or the victim went away meanwhile
      }
    }
  })();
  return {
    counts,
    async stop() {
      running = false;
      await loop;
      return { ...counts };
    },
  };
}

/**
 * Chaos goes on after the last send until enough kills landed (some inside handlers) — a
 * condition, not a duration, so that a slow machine gets the same chaos — or, at the latest,
 * until `CHAOS_MAX_MS` passed; the assertions then say whether it was enough.
 */
async function keepKilling(killer: Killer): Promise<void> {
  const deadline = Date.now() + CHAOS_MAX_MS;
  while (Date.now() < deadline && !(killer.counts.kills >= ENOUGH_KILLS && killer.counts.insideHandler >= ENOUGH_INSIDE)) await Bun.sleep(100);
}

/**
 * Waits (≤ 60 s) until some tool handler is running, so that a kill at that moment interrupts it.
 * When nothing runs (everything sent so far is done), `nudge` sends more work every 500 ms.
 */
async function untilInsideHandler(stateRoot: string, nudge: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let nudgedAt = Date.now();
  while (pidInsideHandler(stateRoot) === undefined) {
    if (Date.now() > deadline) throw new Error('timed out after 60 s waiting for a counter handler to run (no fresh counter.jsonl line)');
    if (Date.now() - nudgedAt > 500) {
      nudgedAt = Date.now();
      await nudge();
    }
    await Bun.sleep(5);
  }
}

async function waitForAnswers(stateRoot: string, labels: string[], timeoutMs: number, daemon: () => Daemon | undefined): Promise<ChaosAudit> {
  const deadline = Date.now() + timeoutMs;
  let audit = auditChaos(stateRoot, WORKSPACE);
  while (Date.now() < deadline) {
    audit = auditChaos(stateRoot, WORKSPACE);
    if (labels.every((label) => audit.answers.has(label))) return audit;
    await Bun.sleep(500);
  }
  const missing = labels.filter((label) => !audit.answers.has(label));
  const logs = daemon()?.logs ?? [];
  const deadLetters = logs.filter((l) => typeof l.msg === 'string' && l.msg.includes('dead-letter')).map((l) => JSON.stringify(l));
  const errors = logs.filter((l) => typeof l.level === 'number' && l.level >= 50).slice(-10).map((l) => JSON.stringify(l));
  const rows = await daemon()?.processes().catch(() => []);
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for every accepted event's answer; ${missing.length} missing: ${missing.slice(0, 20).join(', ')}\n` +
      `dead letters:\n${deadLetters.join('\n')}\nlast errors:\n${errors.join('\n')}\nprocesses: ${JSON.stringify(rows)}`,
  );
}

function expectAtMostOnce(audit: ChaosAudit, accepted: Array<{ eventId: string; label: string }>): void {
  const lost = accepted.filter(({ eventId }) => (audit.inputs.get(eventId) ?? 0) === 0).map((a) => a.label);
  const duplicated = [...audit.inputs].filter(([, count]) => count > 1).map(([eventId]) => eventId);
  expect({ lost, duplicated, extraExecutions: audit.extraExecutions, okWithoutExecution: audit.okWithoutExecution, systemPromptsOff: audit.systemPromptsOff, tornLines: audit.tornLines }).toEqual({
    lost: [],
    duplicated: [],
    extraExecutions: [],
    okWithoutExecution: [],
    systemPromptsOff: [],
    tornLines: 0,
  });
  // Every tool call the model made has one answer: a counted execution or an interruption.
  expect(audit.toolResultsOk + audit.interrupted).toBe(audit.toolCalls);
  expect(audit.counterLines).toBeLessThanOrEqual(audit.toolCalls);
  expect(audit.counterLines).toBeGreaterThanOrEqual(audit.toolResultsOk);
  // The kills did land inside handlers: some calls were interrupted and answered as such.
  expect(audit.interrupted).toBeGreaterThan(0);
}

function report(name: string, figures: Record<string, number>): void {
  console.log(`chaos ${name}: ${JSON.stringify(figures)}`);
}

describe('effects at most once under kill -9', () => {
  test('agent processes killed every ~200 ms: 0 accepted events lost, 0 inputs duplicated, 0 extra tool executions', async () => {
    const stateRoot = tempStateRoot();
    const daemon = await start(stateRoot);
    const started = Date.now();
    const killer = killAgentsAtRandom(stateRoot, () => daemon);
    const accepted: Array<{ eventId: string; label: string }> = [];
    for (let i = 0; i < 240; i++) {
      const sent = await sendCount(daemon, i);
      if (sent) accepted.push(sent);
      if (i % 4 === 3) await Bun.sleep(60); // a steady stream rather than one burst
    }
    expect(accepted).toHaveLength(240);
    // Kills go on after the last send (while the backlog is worked off), then the swarm finishes.
    await keepKilling(killer);
    const { kills, insideHandler } = await killer.stop();
    await waitForAnswers(stateRoot, accepted.map((a) => a.label), 240_000, () => daemon);
    expect(await daemon.stop()).toBe(0);

    const audit = auditChaos(stateRoot, WORKSPACE);
    report('agent kills', { events: accepted.length, instances: audit.instances, kills, insideHandler, toolCalls: audit.toolCalls, counterLines: audit.counterLines, interrupted: audit.interrupted, seconds: Math.round((Date.now() - started) / 1000) });
    expect(kills).toBeGreaterThan(10);
    expect(audit.instances).toBeGreaterThanOrEqual(20);
    expectAtMostOnce(audit, accepted);
  }, 400_000);

  test('agents answering each other before their fsync while processes are killed: every caller gets its answer, and no asker waits for word that never comes', async () => {
    const stateRoot = tempStateRoot();
    const daemon = await startDaemon(BUNDLE, { stateRoot, env: ENV, args: ['-s', 'replies'] });
    daemons.push(daemon);
    // No counter tool here: every kill is of a random agent, without watching 300 ms for a handler first.
    const killer = killAgentsAtRandom(stateRoot, () => daemon, false);
    const answers = new Map<string, string>();
    let asked = 0;
    // Eight callers in parallel, each on its own asker instance (and worker: the default key is the caller's).
    await Promise.all(
      Array.from({ length: 8 }, async (_, caller) => {
        while (asked < 96 || killer.counts.kills < 15) {
          const label = `q${asked++}`;
          const { status, body } = await daemon.send({ input: `ask quick ${label}`, agent: 'asker', instanceKey: `k${caller}`, timeoutMs: 120_000 });
          const error = typeof body.error === 'object' && body.error !== null ? String((body.error as Record<string, unknown>).code) : '';
          answers.set(label, status === 200 && body.status === 'ok' ? String(body.output) : `${status} ${error}`);
        }
      }),
    );
    const { kills } = await killer.stop();
    const syncedByDaemon = daemon.logs.filter((l) => l.msg === 'synced the records of an agent that answered before its own sync').length;
    report('inter-agent answers', { asked, kills, syncedByDaemon, crashed: [...answers.values()].filter((text) => text.endsWith('AGENT_CRASHED')).length });
    expect(kills).toBeGreaterThanOrEqual(15);
    // An answer is the worker's, through the asker; a turn killed three times is given up as AGENT_CRASHED.
    const wrong = [...answers].filter(([label, text]) => text !== `asker got: worker got: quick ${label}` && !text.endsWith('AGENT_CRASHED'));
    expect(wrong).toEqual([]);
    expect([...answers.values()].filter((text) => text.startsWith('asker got')).length).toBeGreaterThan(asked / 2);
    // A reply that left its callee before the sync always got its word (on the ack, or the daemon synced
    // for a callee that died): no asker fell back to going on without it.
    expect(daemon.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('no word that the reply'))).toEqual([]);
    expect(await daemon.stop()).toBe(0);
  }, 400_000);

  test('the daemon killed with SIGKILL twice while a tool handler runs, restarted on the same state root (agents killed at random meanwhile): same guarantees', async () => {
    const stateRoot = tempStateRoot();
    let daemon: Daemon | undefined = await start(stateRoot);
    const started = Date.now();
    const killer = killAgentsAtRandom(stateRoot, () => daemon);
    const accepted: Array<{ eventId: string; label: string }> = [];
    let extra = 1000;
    const nudge = async () => {
      const sent = daemon ? await sendCount(daemon, extra++) : undefined;
      if (sent) accepted.push(sent);
    };
    let daemonKills = 0;
    for (let i = 0; i < 240; i++) {
      if (i === 80 || i === 160) {
        // The daemon dies while a tool handler runs (its agents die with it): calls are interrupted.
        await untilInsideHandler(stateRoot, nudge);
        const victim: Daemon = daemon;
        daemon = undefined;
        victim.proc.kill('SIGKILL');
        await victim.proc.exited;
        daemonKills += 1;
        daemon = await start(stateRoot);
      }
      const sent = await sendCount(daemon, i);
      if (sent) accepted.push(sent);
      if (i % 4 === 3) await Bun.sleep(60);
    }
    await untilInsideHandler(stateRoot, nudge);
    const { kills, insideHandler } = await killer.stop();
    await waitForAnswers(stateRoot, accepted.map((a) => a.label), 240_000, () => daemon);
    expect(await daemon.stop()).toBe(0);

    const audit = auditChaos(stateRoot, WORKSPACE);
    report('daemon kills', { events: accepted.length, daemonKills, agentKills: kills, insideHandler, instances: audit.instances, toolCalls: audit.toolCalls, counterLines: audit.counterLines, interrupted: audit.interrupted, seconds: Math.round((Date.now() - started) / 1000) });
    expect(accepted.length).toBeGreaterThanOrEqual(200);
    expectAtMostOnce(audit, accepted);
  }, 400_000);
});
