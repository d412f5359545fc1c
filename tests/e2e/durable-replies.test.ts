/**
 * Issue 10, replies that outlive their requester's process: a sync agents__request interrupted by
 * a crash resumes under the same correlationId (the callee's turn runs once, the resumed call gets
 * its answer); the reply to an async request whose asker died is kept in the asker's durable inbox
 * and enters its conversation once.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/chaos');
const daemons: Daemon[] = [];
afterEach(() => {
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

async function start(): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { stateRoot: tempStateRoot(), args: ['-s', 'replies'] });
  daemons.push(daemon);
  return daemon;
}

const paths = (daemon: Daemon, agent: string) => instancePaths(daemon.stateRoot, 'replies', agent, 'r');
const counterLines = (daemon: Daemon) => {
  const file = join(paths(daemon, 'worker').workdir, 'counter.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter((l) => l !== '') : [];
};

async function killAsker(daemon: Daemon): Promise<void> {
  const row = (await daemon.processes()).find((p) => p.agent === 'asker' && typeof p.pid === 'number');
  if (!row || typeof row.pid !== 'number') throw new Error('the asker process is not running');
  process.kill(row.pid, 'SIGKILL');
}

describe('a sync agents__request resumes by correlationId', () => {
  test('the asker killed while it waits: after the resume the worker ran once and the original turn got its answer', async () => {
    const daemon = await start();
    const accepted = await daemon.send({ input: 'ask sync s1', instanceKey: 'r', wait: false });
    const eventId = String(accepted.body.eventId);
    await waitUntil(() => counterLines(daemon).length === 1, 'the worker to start its slow tool', 60_000);
    await killAsker(daemon);
    const record = async () => (await (await daemon.api(`/v1/events/${eventId}`)).json()) as Record<string, unknown>;
    await waitUntil(async () => (await record()).status === 'done', `event ${eventId} to finish`, 90_000);
    expect(await record()).toMatchObject({ status: 'done', reply: { status: 'ok', output: 'asker got: worked s1' } });
    // The worker's turn ran once, for one input.
    expect(counterLines(daemon)).toHaveLength(1);
    const workerInputs = readFileSync(paths(daemon, 'worker').baseMessages, 'utf8').split('\n').filter((l) => l.includes('"content":"slow s1"'));
    expect(workerInputs).toHaveLength(1);
    expect(daemon.logs.some((l) => l.msg === 'resumed turn: running an interrupted idempotent tool call again')).toBe(true);
  }, 120_000);
});

describe('an async reply outlives its asker', () => {
  test('the reply to a dead asker is kept in its inbox and enters its conversation once', async () => {
    const daemon = await start();
    expect((await daemon.send({ input: 'ask async a1', instanceKey: 'r' })).body).toMatchObject({ status: 'ok', output: 'asked' });
    await waitUntil(() => counterLines(daemon).length === 1, 'the worker to start its slow tool', 60_000);
    await killAsker(daemon);
    await daemon.waitForLog('the async reply kept in the gone asker\'s inbox', (l) => l.msg === 'requester is gone; async reply kept in its inbox', 60_000);
    // Stored on the asker's side and acknowledged: nothing left in the orchestrator's inbox for it.
    await waitUntil(() => existsSync(paths(daemon, 'asker').asyncReplies) && readFileSync(paths(daemon, 'asker').asyncReplies, 'utf8').includes('worked a1'), 'the kept reply in async-replies.jsonl', 60_000);
    expect((await daemon.send({ input: 'hello', instanceKey: 'r' })).body).toMatchObject({ status: 'ok' });
    const injected = readFileSync(paths(daemon, 'asker').baseMessages, 'utf8')
      .split('\n')
      .filter((l) => l.includes('__goondanInterAgentResponse') && l.includes('worked a1'));
    expect(injected).toHaveLength(1);
    expect(readFileSync(paths(daemon, 'asker').asyncReplies, 'utf8')).toBe('');
  }, 120_000);
});
