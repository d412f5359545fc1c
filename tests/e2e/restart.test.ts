/**
 * `goondan restart` (issue 11): only the named agent's processes restart and keep their history;
 * `--fresh` clears the state of what it restarts, and asks first (`--yes` skips the question).
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT, sharedDaemon, waitUntil } from './daemon-harness.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));

async function goondan(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([GOONDAN_BIN, ...args, '--state-root', daemon().stateRoot], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function pidOf(agent: string, instanceKey: string): Promise<number> {
  const row = (await daemon().processes()).find((p) => p.agent === agent && p.instanceKey === instanceKey);
  return Number(row?.pid ?? 0);
}

const history = (agent: string, key: string) => {
  const file = instancePaths(daemon().stateRoot, 'e2e', agent, key).baseMessages;
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

describe('goondan restart', () => {
  test('--agent restarts only that agent\'s processes, and its conversation goes on with its history', async () => {
    await daemon().send({ input: 'remember the colour is teal', instanceKey: 'r1' });
    await daemon().send({ input: 'hello beta', agent: 'beta', instanceKey: 'r1' });
    const alphaBefore = await pidOf('alpha', 'r1');
    const betaBefore = await pidOf('beta', 'r1');
    const run = await goondan(['restart', '--agent', 'alpha']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('restarted 1 process(es)') });
    await waitUntil(async () => (await pidOf('alpha', 'r1')) > 0 && (await pidOf('alpha', 'r1')) !== alphaBefore, 'a new alpha:r1 process');
    expect(await pidOf('beta', 'r1')).toBe(betaBefore);
    const { body } = await daemon().send({ input: 'what did I say?', instanceKey: 'r1' });
    expect(body.status).toBe('ok');
    expect(history('alpha', 'r1')).toContain('remember the colour is teal');
    expect(history('alpha', 'r1')).toContain('what did I say?');
  });

  test('--fresh without a terminal refuses unless --yes is given (exit 2), and changes nothing', async () => {
    await daemon().send({ input: 'keep me', instanceKey: 'r2' });
    const run = await goondan(['restart', '--instance', 'r2', '--fresh']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--yes');
    expect(history('alpha', 'r2')).toContain('keep me');
  });

  test('--fresh --yes clears the state of the restarted instance only; it starts afresh on its next event', async () => {
    await daemon().send({ input: 'forget me', instanceKey: 'r3' });
    await daemon().send({ input: 'not me', instanceKey: 'r4' });
    const run = await goondan(['restart', '--agent', 'alpha', '--instance', 'r3', '--fresh', '--yes']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('deleted 1 state directory') });
    expect(history('alpha', 'r3')).toBe('');
    expect(history('alpha', 'r4')).toContain('not me');
    await daemon().send({ input: 'new start', instanceKey: 'r3' });
    expect(history('alpha', 'r3')).toContain('new start');
    expect(history('alpha', 'r3')).not.toContain('forget me');
  });

  test('an unknown agent is a usage error naming it', async () => {
    const run = await goondan(['restart', '--agent', 'nobody']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("agent 'nobody'");
  });
});
