/**
 * `goondan run --host` with an IPv6 loopback, bracketed or not: the runtime file holds a URL the
 * other commands can use (`http://[::1]:N`, bracketed once), so `goondan ps` finds the daemon.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeFilePath } from '../../shared/state-paths.ts';
import { REPO_ROOT, daemonsStoppedAfterAll, startDaemon } from '../e2e/daemon-harness.ts';
import { goondan } from './goondan-cli.ts';

const BUNDLE = join(REPO_ROOT, 'bundles/demo');
const daemons = daemonsStoppedAfterAll();

/**
 * A machine without an IPv6 loopback cannot run this test; it fails saying so (never skips):
 * `.ci/run` turns the loopback on when the kernel has it off.
 */
function ipv6LoopbackProblem(): string | undefined {
  try {
    Bun.serve({ hostname: '::1', port: 0, fetch: () => new Response('') }).stop(true);
    return undefined;
  } catch (error) {
    return `no IPv6 loopback here (${(error as Error).message}): turn it on with \`sysctl -w net.ipv6.conf.lo.disable_ipv6=0\` (as .ci/run does)`;
  }
}

describe('an IPv6 --host is bracketed once in the API URL', () => {
  test('this machine has an IPv6 loopback to listen on', () => {
    expect(ipv6LoopbackProblem()).toBeUndefined();
  });

  for (const host of ['[::1]', '::1']) {
    test(`--host ${host}: the runtime file says http://[::1]:N and goondan ps reaches the daemon`, async () => {
      const daemon = await startDaemon(BUNDLE, { args: ['--host', host] });
      daemons.push(daemon);
      const runtime: unknown = JSON.parse(readFileSync(runtimeFilePath(daemon.stateRoot, 'demo'), 'utf8'));
      expect(runtime).toMatchObject({ apiUrl: expect.stringMatching(/^http:\/\/\[::1\]:\d+$/) });
      const ps = await goondan(['ps', '--json', '--state-root', daemon.stateRoot]);
      expect(ps.stderr).toBe('');
      expect(ps.code).toBe(0);
      expect(JSON.parse(ps.stdout)).toBeArray();
    });
  }
});
