/**
 * A new instance must not feel new (issue 12): when the daemon says it is ready (/readyz, the
 * 'orchestrator started' line), a warm spare has already booted, so the very first message to a
 * new instanceKey is served by that spare instead of racing it with a cold start.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { daemonsStoppedAfterAll, REPO_ROOT, startDaemon, waitUntil } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons = daemonsStoppedAfterAll();

describe('the first message after /readyz', () => {
  test('is served by the spare that booted before the daemon said ready (same pid), not by a cold start', async () => {
    const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_WARM_POOL: '1' } });
    daemons.push(daemon);
    expect((await daemon.api('/readyz')).status).toBe(200);
    const spares = (await daemon.processes()).filter((p) => p.kind === 'pool');
    expect(spares).toHaveLength(1);
    const { status, body } = await daemon.send({ input: 'first', instanceKey: 'brand-new' });
    expect({ status, output: body.output }).toEqual({ status: 200, output: 'alpha got: first' });
    const served = (await daemon.processes()).find((p) => p.agent === 'alpha' && p.instanceKey === 'brand-new');
    expect(served?.pid).toBe(spares[0]?.pid);
  });
});

describe('a swarm of several agents keeps two spares by default', () => {
  test('the first exchange between two new instances (A, then B from A’s tool call) is served by both spares, no cold start', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    await waitUntil(() => daemon.logs.filter((l) => l.msg === 'warm spare primed for the agent it will likely become').length >= 2, 'both spares ready');
    const spares = (await daemon.processes()).filter((p) => p.kind === 'pool').map((p) => p.pid);
    expect(spares).toHaveLength(2);
    const { status, body } = await daemon.send({ input: 'ask beta ping', instanceKey: 'new-pair' });
    expect({ status, output: body.output }).toEqual({ status: 200, output: 'beta said: beta got: ping' });
    const served = (await daemon.processes()).filter((p) => p.kind === 'agent' && p.instanceKey === 'new-pair');
    expect(served.map((p) => p.agent).sort()).toEqual(['alpha', 'beta']);
    expect(served.map((p) => p.pid).sort()).toEqual([...spares].sort());
  });
});

describe('a warm spare rehearses, once, before it says ready', () => {
  test('it ran a turn, and nothing of it reaches the state root, the event stream or its temp directory', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'goondan-spare-tmp-'));
    const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_WARM_POOL: '1', GOONDAN_SCRATCH_DIR: scratch } });
    daemons.push(daemon);
    try {
      // Primed as it was launched: its one rehearsal is of the entry agent's plan.
      const line = await daemon.waitForLog('the spare rehearsed', (l) => typeof l.msg === 'string' && l.msg.includes('warm spare'));
      expect({ msg: line.msg, primed: line.primed }).toEqual({ msg: 'warm spare primed for the agent it will likely become', primed: true });
      const { status, body } = await daemon.send({ input: 'first', instanceKey: 'first-real' });
      expect({ status, output: body.output }).toEqual({ status: 200, output: 'alpha got: first' });
      // The rehearsal's instance never existed for the daemon: no directory, no process row, no runtime event.
      const rehearsalPaths = listTree(daemon.stateRoot).filter((path) => path.includes('rehearsal'));
      expect(rehearsalPaths).toEqual([]);
      expect((await daemon.processes()).map((p) => p.instanceKey)).not.toContain('rehearsal');
      expect(daemon.logs.filter((l) => l.instanceKey === 'rehearsal')).toEqual([]);
      // The first spare and the one that replaced it rehearsed once each (primed as they were
      // launched, no generic rehearsal before); once both are done nothing of them is left.
      const count = (msg: string) => daemon.logs.filter((l) => l.msg === msg).length;
      await waitUntil(() => count('warm spare primed for the agent it will likely become') >= 2, 'both spares primed');
      expect(count('warm spare rehearsed a turn')).toBe(0);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((entry) => join(dir, entry));
}

describe('a ready spare is primed for the agent it will likely become', () => {
  test('it loads the agent’s tool module and rehearses its plan, runs no tool handler, and serves the first new instance', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'goondan-priming-'));
    const marker = join(scratch, 'marker');
    const daemon = await startDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/priming'), {
      env: { GOONDAN_WARM_POOL: '1', GOONDAN_TEST_MARKER: marker, GOONDAN_SCRATCH_DIR: scratch },
    });
    daemons.push(daemon);
    try {
      const line = await daemon.waitForLog('the spare primed', (l) => l.msg === 'warm spare primed for the agent it will likely become');
      expect({ primedFor: line.primedFor, primed: line.primed }).toEqual({ primedFor: 'scribe', primed: true });
      const spare = (await daemon.processes()).find((p) => p.kind === 'pool');
      // The rehearsal's model asked for marker__touch; the call was refused before its handler.
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(`${marker}.loaded`, 'utf8').split('\n')).toContain(String(spare?.pid));
      await daemon.waitForLog('the daemon knows the spare is primed', (l) => l.msg === 'warm spare primed: it will be assigned without the plans it holds' && l.childPid === spare?.pid);
      const { status, body } = await daemon.send({ input: 'first', instanceKey: 'first-real' });
      expect({ status, output: body.output }).toEqual({ status: 200, output: `touched: ${spare?.pid}` });
      // It was assigned without the plans it already held (`asPrimed`), and built the agent from them.
      const ready = await daemon.waitForLog('first-real ready', (l) => l.msg === 'process ready' && l.process === 'scribe:first-real');
      expect({ childPid: ready.childPid, assignedAsPrimed: ready.assignedAsPrimed }).toEqual({ childPid: spare?.pid, assignedAsPrimed: true });
      // The real turn ran the handler once, in the primed spare.
      expect(readFileSync(marker, 'utf8')).toBe(`${spare?.pid} first\n`);
      // The spare that replaced it rehearses and is primed too; then nothing is left of either.
      await daemon.waitForLog('the next spare primed', (l) => l.msg === 'warm spare primed for the agent it will likely become' && l.pid !== line.pid);
      expect(readdirSync(scratch).filter((name) => name.startsWith('goondan-rehearsal-'))).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
