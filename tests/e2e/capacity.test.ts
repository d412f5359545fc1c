/**
 * Capacity on one machine (issue 12), through the real daemon: with maxLiveProcesses 20 and a 2 s
 * TTL, 500 distinct instance keys (25× the limit, so most spawns passivate someone first) all get
 * their replies while the live agent processes (sampled) never exceed 20; a passivated instance
 * keeps its history; a SIGTERM half-way and a restart lose nothing that was accepted. 10,000 keys
 * are driven by bench/capacity.ts (minutes of process starts on 2 cores).
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, REPO_ROOT, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/capacity');
const KEYS = Array.from({ length: 500 }, (_, i) => `user-${String(i).padStart(3, '0')}`);
const CONCURRENCY = 16;
const MAX_LIVE = 20;

const history = (stateRoot: string, key: string) => {
  const file = instancePaths(stateRoot, 'capacity', 'host', key).baseMessages;
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

/** Sends `hello <key>` for every key, `CONCURRENCY` at a time; resolves with the failures (`key: status code`). */
async function sendAll(daemon: Daemon, keys: string[]): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++] ?? '';
      const { status, body } = await daemon.send({ input: `hello ${key}`, instanceKey: key });
      if (status !== 200) failures.push(`${key}: ${status} ${JSON.stringify(body.error ?? body)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return failures;
}

describe('500 instances, at most 20 live', () => {
  test('every key gets its reply, live processes stay within the limit, history survives passivation and a restart half-way', async () => {
    const stateRoot = tempStateRoot();
    let daemon = await startDaemon(BUNDLE, { stateRoot });
    let maxLive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const live = (await daemon.processes().catch(() => [])).filter((p) => p.kind === 'agent' && p.pid !== null).length;
        maxLive = Math.max(maxLive, live);
        await Bun.sleep(100);
      }
    })();
    try {
      expect(await sendAll(daemon, KEYS.slice(0, 250))).toEqual([]);
      // Accepted but not yet answered when the daemon is told to stop: they must run after the restart.
      const inFlight = KEYS.slice(250, 280).map((key) => daemon.send({ input: `hello ${key}`, instanceKey: key, wait: false }));
      expect((await Promise.all(inFlight)).map((r) => r.status).filter((s) => s !== 202)).toEqual([]);
      expect(await daemon.stop('SIGTERM')).toBe(0);
      daemon.cleanup = () => {};
      daemon = await startDaemon(BUNDLE, { stateRoot });
      expect(await sendAll(daemon, KEYS.slice(280))).toEqual([]);
      await waitUntil(() => KEYS.every((key) => history(stateRoot, key).includes(`got: hello ${key}`)), 'every key to have its reply in its history');

      // user-000 was passivated long ago: its next turn still sees its earlier messages on disk.
      const earlier = history(stateRoot, 'user-000');
      expect((await daemon.send({ input: 'still there', instanceKey: 'user-000' })).body.output).toBe('got: still there');
      const after = history(stateRoot, 'user-000');
      expect(after.startsWith(earlier.trimEnd().split('\n')[0] ?? '')).toBe(true);
      expect(after).toContain('hello user-000');
      expect(after).toContain('still there');
      expect((await daemon.processes()).some((p) => p.status === 'passivated')).toBe(true);
    } finally {
      sampling = false;
      await sampler;
      await daemon.stop();
      daemon.cleanup();
    }
    expect(maxLive).toBeGreaterThan(0);
    expect(maxLive).toBeLessThanOrEqual(MAX_LIVE);
  });
});
