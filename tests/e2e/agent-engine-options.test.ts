/**
 * Lean agent processes (issue 12): a daemon starts its agents with a higher JIT threshold, so an
 * instance that ran a turn compiled nothing and runs no JIT compiler thread (~3.5 MB and two
 * threads less per instance); GOONDAN_AGENT_ENGINE=default keeps Bun's own tiering.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_ENGINE_ENV } from '../../orchestrator/process/agent-engine-options.ts';
import { type Daemon, daemonsStoppedAfterAll, REPO_ROOT, startDaemon } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons = daemonsStoppedAfterAll();

/** The pid of the instance after one turn on it. */
async function instanceAfterOneTurn(daemon: Daemon, instanceKey: string): Promise<number> {
  const { status, body } = await daemon.send({ input: 'hello', instanceKey });
  expect({ status, output: body.output }).toEqual({ status: 200, output: 'alpha got: hello' });
  const row = (await daemon.processes()).find((p) => p.agent === 'alpha' && p.instanceKey === instanceKey);
  if (typeof row?.pid !== 'number') throw new Error(`no running process for instance ${instanceKey}: ${JSON.stringify(row)}`);
  return row.pid;
}

function environment(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
}

describe('agent processes under a daemon', () => {
  test('start with the engine options and, after a turn, run no JIT compiler or block warm-up thread', async () => {
    // On a fresh install the first agents compile and cache the ajv validators: hot code, which the
    // JIT rightly compiles. A first session fills the caches, as an install's first run does.
    const warmUp = await startDaemon(BUNDLE);
    try {
      await instanceAfterOneTurn(warmUp, 'warm-up');
    } finally {
      await warmUp.stop();
      warmUp.cleanup();
    }
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    const pid = await instanceAfterOneTurn(daemon, 'lean');
    expect(environment(pid)).toMatchObject(AGENT_ENGINE_ENV);
    expect(threadNames(pid).filter((name) => name.startsWith('JITWorker') || name === 'JSCWarmUp')).toEqual([]);
  });

  test('GOONDAN_AGENT_ENGINE=default: agents start with Bun’s own settings', async () => {
    const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_AGENT_ENGINE: 'default' } });
    daemons.push(daemon);
    const pid = await instanceAfterOneTurn(daemon, 'default-tiering');
    expect(Object.keys(environment(pid)).filter((name) => name.startsWith('BUN_JSC_'))).toEqual([]);
  });
});
