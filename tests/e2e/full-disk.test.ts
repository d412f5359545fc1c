/**
 * A daemon whose state root's disk fills up (a real tmpfs in a private mount namespace, `unshare`):
 * a submission the disk refuses is answered 507 E_HTTP_NO_SPACE at once — not a timeout a minute
 * later — and is not run later behind its caller's back; once space is back, events are served.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT } from './daemon-harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('a full disk under the state root', () => {
  test('a refused submission gets 507 at once and never runs; with space back, events are served', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-full-disk-root-'));
    const command = `mount -t tmpfs -o size=8m tmpfs '${stateRoot}' && exec '${GOONDAN_BIN}' run '${BUNDLE}' --port 0 --state-root '${stateRoot}'`;
    const proc = Bun.spawn(['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', command], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, GOONDAN_LOG_LEVEL: 'info' } });
    cleanups.push(() => {
      proc.kill('SIGKILL');
      rmSync(stateRoot, { recursive: true, force: true });
    });
    let log = '';
    void (async () => {
      for await (const chunk of proc.stdout) log += new TextDecoder().decode(chunk);
    })();
    const started = await waitFor('the daemon to start', () => log.match(/"api":"([^"]+)"[^\n]*"msg":"orchestrator started"/)?.[1], (api) => api !== undefined);
    // The tmpfs is seen through the daemon's own root: /proc/PID/root.
    const inside = (path: string) => `/proc/${proc.pid}/root${stateRoot}/${path}`;
    const token = readFileSync(inside('runtime/api-token'), 'utf8').trim();
    const send = async (input: string, instanceKey: string) => {
      const response = await fetch(`${started}/v1/events`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ input, instanceKey }) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await send('hello', 'k1')).toMatchObject({ status: 200, body: { output: 'alpha got: hello' } });

    // Fill the disk to the last byte.
    mkdirSync(inside('filler'), { recursive: true });
    const block = Buffer.alloc(64 * 1024);
    for (let i = 0; ; i++) {
      try {
        writeFileSync(inside(`filler/${i}`), block);
      } catch {
        break;
      }
    }
    const startedAt = Date.now();
    const refused = await send(`too much ${'x'.repeat(50_000)}`, 'k2');
    expect(refused).toMatchObject({ status: 507, body: { error: { code: 'E_HTTP_NO_SPACE' } } });
    expect(Date.now() - startedAt).toBeLessThan(10_000);

    rmSync(inside('filler'), { recursive: true, force: true });
    expect(await send('space again', 'k3')).toMatchObject({ status: 200, body: { output: 'alpha got: space again' } });
    // The refused event did not run once the space came back (the inbox retries its other records).
    await Bun.sleep(1_500);
    const conversation = `/proc/${proc.pid}/root${instancePaths(stateRoot, 'e2e', 'alpha', 'k2').baseMessages}`;
    expect(existsSync(conversation) ? readFileSync(conversation, 'utf8') : '').not.toContain('too much');
  });
});
