/**
 * `--watch` (SPEC.md §2.8): a valid edit restarts only the affected processes and keeps their
 * history; an invalid edit keeps the running configuration.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Daemon, REPO_ROOT, startDaemon, waitFor } from './daemon-harness.ts';

const FIXTURE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function watchedDaemon(): Promise<{ daemon: Daemon; bundle: string }> {
  const bundle = mkdtempSync(join(tmpdir(), 'goondan-watch-'));
  cpSync(FIXTURE, bundle, { recursive: true });
  const daemon = await startDaemon(bundle, { args: ['--watch'] });
  cleanups.push(async () => {
    await daemon.stop();
    daemon.cleanup();
    rmSync(bundle, { recursive: true, force: true });
  });
  return { daemon, bundle };
}

async function pids(daemon: Daemon): Promise<Record<string, number>> {
  const rows = await daemon.processes();
  return Object.fromEntries(rows.map((r) => [`${String(r.agent)}:${String(r.instanceKey)}`, Number(r.pid)]));
}

describe('--watch', () => {
  test('editing one agent restarts only its processes and keeps its history', async () => {
    const { daemon, bundle } = await watchedDaemon();
    await daemon.send({ input: 'remember the colour is teal', instanceKey: 'w' });
    await daemon.send({ input: 'hello beta', agent: 'beta', instanceKey: 'w' });
    const before = await pids(daemon);
    const file = join(bundle, 'goondan.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('You are alpha.', 'You are alpha the second.'));
    await daemon.waitForLog('bundle reloaded', (l) => l.msg === 'bundle reloaded');
    const after = await waitFor(
      `a new alpha:w process (pids before: ${JSON.stringify(before)})`,
      () => pids(daemon),
      (now) => now['alpha:w'] !== undefined && now['alpha:w'] > 0 && now['alpha:w'] !== before['alpha:w'],
    );
    expect(after['beta:w']).toBe(before['beta:w']);
    const { body } = await daemon.send({ input: 'still there?', instanceKey: 'w' });
    expect(body.output).toBe('alpha got: still there?');
    // The stored conversation as the studio shows it (base, its edits and the running turn).
    const stored = (await (await daemon.api('/v1/instances/w/messages?agent=alpha')).json()) as { messages: Array<{ data: { role: string; content: unknown } }> };
    const history = JSON.stringify(stored.messages);
    expect(history).toContain('teal');
    expect(stored.messages.filter((message) => message.data.role === 'system').map((message) => message.data.content)).toEqual([expect.stringContaining('You are alpha the second.')]);
  });

  test('an invalid edit is reported and the running swarm keeps serving', async () => {
    const { daemon, bundle } = await watchedDaemon();
    await daemon.send({ input: 'hi', instanceKey: 'v' });
    const before = await pids(daemon);
    const file = join(bundle, 'goondan.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('entryAgent: Agent/alpha', 'entryAgent: Agent/nobody'));
    const line = await daemon.waitForLog('the invalid edit reported', (l) => l.msg === 'bundle changed but is invalid; keeping the running configuration');
    expect(JSON.stringify(line.problems)).toContain('nobody');
    const { body } = await daemon.send({ input: 'still serving', instanceKey: 'v' });
    expect(body.output).toBe('alpha got: still serving');
    expect((await pids(daemon))['alpha:v']).toBe(before['alpha:v']);
  });
});
