/**
 * A daemon URL where nothing answers (GOONDAN_API_URL, or a runtime file left by a daemon that was
 * killed) or that is no URL: every command that talks to the daemon says so in one line — the URL,
 * where it came from, what to do — and exits 1 like "no running daemon"; no stack trace.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancesDir, runtimeFilePath } from '../../shared/state-paths.ts';
import { type CliRun, goondan } from './goondan-cli.ts';

const COMMANDS = [['send', 'hi'], ['ps'], ['restart'], ['instance', 'delete', 'k'], ['studio']];

let temp = '';
let closedUrl = '';
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'goondan-unreachable-'));
  // A port that was just free: nothing listens there.
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
  closedUrl = `http://127.0.0.1:${server.port}`;
  server.stop(true);
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function expectOneLineWithoutStack(run: CliRun): void {
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toContain('TypeError');
}

describe('GOONDAN_API_URL where nothing answers', () => {
  for (const args of COMMANDS) {
    test(`goondan ${args.join(' ')}: one line naming the URL and its source, exit 1`, async () => {
      const run = await goondan([...args, '--state-root', join(temp, 'empty')], { env: { GOONDAN_API_URL: closedUrl } });
      expect(run.code).toBe(1);
      expectOneLineWithoutStack(run);
      expect(run.stderr).toContain(`goondan ${args[0]}: the goondan daemon at ${closedUrl} is not reachable (connection refused; URL from GOONDAN_API_URL)`);
      expect(run.stderr).toContain("Start one with 'goondan run', or correct or unset GOONDAN_API_URL");
    });
  }

  test('a GOONDAN_API_URL that is no URL is named as such', async () => {
    const run = await goondan(['ps', '--state-root', join(temp, 'empty')], { env: { GOONDAN_API_URL: 'http://[[::1]]:7420' } });
    expect(run.code).toBe(1);
    expectOneLineWithoutStack(run);
    expect(run.stderr).toContain("goondan ps: the daemon URL 'http://[[::1]]:7420' from GOONDAN_API_URL is not a valid URL");
  });
});

describe('a runtime file whose daemon does not answer (killed, its pid reused)', () => {
  test('names the runtime file and says it may be stale; instance delete does not delete behind its back', async () => {
    const stateRoot = join(temp, 'stale');
    const file = runtimeFilePath(stateRoot, 'demo');
    mkdirSync(join(stateRoot, 'runtime'), { recursive: true });
    // This test's own pid: alive, so the file counts as a running daemon's.
    writeFileSync(file, JSON.stringify({ pid: process.pid, apiUrl: closedUrl, startedAt: '', bundlePath: '', swarm: 'demo', workspaceId: 'demo' }));
    const instanceDir = join(instancesDir(stateRoot, 'demo'), 'writer--k');
    mkdirSync(instanceDir, { recursive: true });
    writeFileSync(join(instanceDir, 'metadata.json'), JSON.stringify({ agentName: 'writer', instanceKey: 'k' }));
    expect((await goondan(['instance', 'list', '--state-root', stateRoot])).stdout).toContain('writer');
    for (const args of COMMANDS) {
      const run = await goondan([...args, '--state-root', stateRoot]);
      expect(run.code).toBe(1);
      expectOneLineWithoutStack(run);
      expect(run.stderr).toContain(`the goondan daemon at ${closedUrl} is not reachable (connection refused; URL from ${file})`);
      expect(run.stderr).toContain(`is the daemon (pid ${process.pid}) still running? If it was killed, that runtime file is stale`);
    }
    expect(existsSync(instanceDir)).toBe(true);
  });
});
