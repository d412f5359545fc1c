/**
 * Failures reach whoever waits, with their real code, at once (issue 8): start-up failures, a
 * start-up that never finishes, a shutdown during start-up, a plan too large for an environment,
 * a daemon stopped while a caller waits on an unhealthy agent, and stray rejections in tool code.
 * Through the real daemon and real agent processes.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, GOONDAN_BIN, REPO_ROOT, isRunning, startDaemon, tempStateRoot, waitFor, waitUntil } from './daemon-harness.ts';


const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/seams');
/** Far below the 60 s request timeout that used to be the only answer. */
const WELL_BEFORE_ANY_TIMEOUT_MS = 30_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function seamsDaemon(args: string[] = ['-s', 'seams'], env: Record<string, string> = {}): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { args, env });
  cleanups.push(async () => {
    await daemon.stop();
    daemon.cleanup();
  });
  return daemon;
}

let shared: Promise<Daemon> | undefined;
/** The `seams` swarm's daemon for the tests that do not stop it: started by the first that asks; each uses agents or instance keys of its own. */
function sharedSeamsDaemon(): Promise<Daemon> {
  shared ??= seamsDaemon();
  return shared;
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

async function goondan(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const started = Date.now();
  const proc = Bun.spawn([GOONDAN_BIN, ...args], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr, ms: Date.now() - started };
}

async function row(daemon: Daemon, agent: string, instanceKey: string): Promise<Record<string, unknown> | undefined> {
  return (await daemon.processes()).find((p) => p.agent === agent && p.instanceKey === instanceKey);
}

describe('an agent that cannot start answers every caller with the real error at once', () => {
  test('goondan run --input exits 1 printing E_TOOL_HANDLER_MISSING with the file, not a request timeout', async () => {
    const stateRoot = tempStateRoot();
    cleanups.push(() => rmSync(stateRoot, { recursive: true, force: true }));
    const run = await goondan(['run', BUNDLE, '-s', 'broken-tool', '--input', 'hello', '--state-root', stateRoot]);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toContain('E_TOOL_HANDLER_MISSING');
    expect(run.stderr).toContain(join(BUNDLE, 'tools/broken/index.ts'));
    expect(run.stderr).not.toContain('AGENT_REQUEST_TIMEOUT');
    expect(run.ms).toBeLessThan(WELL_BEFORE_ANY_TIMEOUT_MS);
  });

  test('POST /v1/events gets 503 with the error body; ps, /v1/processes and /metrics show it; nothing restarts', async () => {
    const daemon = await sharedSeamsDaemon();
    const first = await daemon.send({ input: 'hi', agent: 'no-handlers', instanceKey: 'k1' });
    expect(first.status).toBe(503);
    expect(first.body.error).toMatchObject({
      code: 'E_TOOL_HANDLER_MISSING',
      category: 'user',
      message: expect.stringContaining("export 'noop'"),
      suggestion: expect.any(String),
      details: { file: join(BUNDLE, 'tools/broken/index.ts'), agent: 'no-handlers', instanceKey: 'k1', phase: 'startup' },
    });
    // A second caller is answered at once from the recorded failure: the instance is not respawned.
    const second = await daemon.send({ input: 'again', agent: 'no-handlers', instanceKey: 'k1' });
    expect(second.status).toBe(503);
    expect(second.body.error).toMatchObject({ code: 'E_TOOL_HANDLER_MISSING' });
    // The failed child is on its way out: its row loses its pid when it has exited.
    const failed = await waitFor('no-handlers:k1 to have exited', () => row(daemon, 'no-handlers', 'k1'), (r) => r?.pid === null);
    expect(failed).toMatchObject({ status: 'failed', pid: null, restarts: 0, crashes: 0, lastError: { code: 'E_TOOL_HANDLER_MISSING' } });
    expect(String((failed?.lastError as { at?: string } | undefined)?.at)).toMatch(/^\d{4}-\d\d-\d\dT/);
    const spawns = daemon.logs.filter((l) => l.msg === 'process failed to start' && l.process === 'no-handlers:k1');
    expect(spawns.length).toBe(1);

    const ps = await goondan(['ps', '--state-root', daemon.stateRoot]);
    expect(ps.code).toBe(0);
    expect(ps.stdout).toContain('LAST ERROR');
    expect(ps.stdout).toMatch(/no-handlers\s+k1\s+-\s+failed\s+0\s+0\s+-\s+0\s+-\s+E_TOOL_HANDLER_MISSING: /);

    const metrics = await (await daemon.api('/metrics')).text();
    expect(metrics).toContain('goondan_start_failures_total{agent="no-handlers",code="E_TOOL_HANDLER_MISSING"} 1');
  });

  test('an extension whose register() throws is E_EXT_INIT naming the extension and its message', async () => {
    const daemon = await sharedSeamsDaemon();
    const { status, body } = await daemon.send({ input: 'hi', agent: 'bad-ext', instanceKey: 'k1' });
    expect(status).toBe(503);
    expect(body.error).toMatchObject({ code: 'E_EXT_INIT', message: expect.stringContaining("Extension 'throws': register() failed: cannot reach the vault") });
    expect(await row(daemon, 'bad-ext', 'k1')).toMatchObject({ status: 'failed', lastError: { code: 'E_EXT_INIT' } });
  });

  test('goondan send prints the code, the message and what to do, and exits 1', async () => {
    const daemon = await sharedSeamsDaemon();
    const send = await goondan(['send', 'hi', '--agent', 'bad-ext', '--instance', 'cli', '--state-root', daemon.stateRoot]);
    expect(send.code).toBe(1);
    expect(send.stderr).toContain('goondan send: E_EXT_INIT: ');
    expect(send.stderr).toContain('  → ');
  });

  test('a start-up that never becomes ready within startupTimeoutSeconds is E_AGENT_START_TIMEOUT', async () => {
    const daemon = await seamsDaemon(['-s', 'never-ready']);
    const { status, body } = await daemon.send({ input: 'hi', instanceKey: 'k1' });
    expect(status).toBe(503);
    expect(body.error).toMatchObject({ code: 'E_AGENT_START_TIMEOUT', message: expect.stringContaining('did not become ready within 1 s') });
    await waitUntil(async () => ((await row(daemon, 'stuck', 'k1'))?.lastError as { code?: string } | undefined)?.code === 'E_AGENT_START_TIMEOUT', 'lastError E_AGENT_START_TIMEOUT on stuck:k1');
  });
});

describe('start-up and shutdown', () => {
  test('a shutdown that arrives while an agent is still starting drains cleanly: exit 0, no ReferenceError, no child left', async () => {
    // The slow agent's start holds until a gate opens (not the fixture's 4 s): opened once the shutdown has begun.
    const bundle = mkdtempSync(join(tmpdir(), 'goondan-slowstart-'));
    cleanups.push(() => rmSync(bundle, { recursive: true, force: true }));
    cpSync(BUNDLE, bundle, { recursive: true });
    const gate = join(bundle, 'start-gate');
    const yaml = readFileSync(join(bundle, 'goondan.yaml'), 'utf8').replace('config: { delayMs: 4000 }', `config: { gate: ${JSON.stringify(gate)} }`);
    expect(yaml).toContain(`gate: ${JSON.stringify(gate)}`);
    writeFileSync(join(bundle, 'goondan.yaml'), yaml);
    const daemon = await startDaemon(bundle, { args: ['-s', 'seams'] });
    cleanups.push(() => daemon.cleanup());
    const accepted = await daemon.send({ input: 'hi', agent: 'slow', instanceKey: 'k1', wait: false });
    expect(accepted.status).toBe(202);
    await daemon.waitForLog('the slow start to begin', (l) => l.msg === 'slow start begins');
    const pids = (await daemon.processes()).map((p) => Number(p.pid)).filter((pid) => pid > 0);
    expect(pids.length).toBeGreaterThan(0);
    const exitCode = daemon.stop('SIGTERM');
    await daemon.waitForLog('the shutdown to begin', (l) => l.msg === 'shutting down');
    writeFileSync(gate, '');
    expect(await exitCode).toBe(0);
    expect(daemon.stderr()).not.toContain('ReferenceError');
    expect(daemon.logs.some((l) => JSON.stringify(l).includes('ReferenceError'))).toBe(false);
    await waitUntil(() => pids.every((pid) => !isRunning(pid)), `children ${pids.join(', ')} to exit`);
  });

  test('a 168 KB system prompt reaches the agent: plans travel over IPC, not in the environment (no E2BIG)', async () => {
    const bundle = mkdtempSync(join(tmpdir(), 'goondan-bigplan-'));
    cleanups.push(() => rmSync(bundle, { recursive: true, force: true }));
    cpSync(BUNDLE, bundle, { recursive: true });
    const prompt = `You are good. ${'All work and no play makes a long prompt. '.repeat(4_200)}`;
    expect(prompt.length).toBeGreaterThan(168_000);
    writeFileSync(join(bundle, 'big-prompt.md'), prompt);
    const yaml = readFileSync(join(bundle, 'goondan.yaml'), 'utf8').replace(
      'modelConfig: { modelRef: Model/scripted }\n  tools: [Tool/stray]',
      'modelConfig: { modelRef: Model/scripted }\n  prompt: { systemRef: ./big-prompt.md }\n  tools: [Tool/stray]',
    );
    expect(yaml).toContain('systemRef: ./big-prompt.md');
    writeFileSync(join(bundle, 'goondan.yaml'), yaml);
    const daemon = await startDaemon(bundle, { args: ['-s', 'seams'] });
    cleanups.push(async () => {
      await daemon.stop();
      daemon.cleanup();
    });
    const { status, body } = await daemon.send({ input: 'are you there', instanceKey: 'big' });
    expect({ status, output: body.output }).toEqual({ status: 200, output: 'good got: are you there' });
    expect(daemon.logs.some((l) => JSON.stringify(l).includes('E2BIG'))).toBe(false);
  });

  test('SIGTERM answers a one-shot caller waiting on a crash-looping agent with DAEMON_STOPPING, and the run exits', async () => {
    const stateRoot = tempStateRoot();
    cleanups.push(() => rmSync(stateRoot, { recursive: true, force: true }));
    const proc = Bun.spawn([GOONDAN_BIN, 'run', BUNDLE, '-s', 'crash-loop', '--input', 'hello', '--state-root', stateRoot], {
      stdout: 'pipe',
      stderr: 'pipe',
      // The sixth crash waits a minute: the caller would wait for ever without the shutdown answer.
      env: { ...process.env, GOONDAN_BACKOFF_BASE_MS: '60000' },
    });
    const log = join(stateRoot, 'runtime/logs/goondan.log');
    await waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('"msg":"crashLoopBackOff"'), 'crashLoopBackOff in the daemon log');
    proc.kill('SIGTERM');
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toContain('DAEMON_STOPPING');
  });
});

describe('a stray rejection in tool code belongs to its tool call, not to the process', () => {
  test('while the call runs it becomes the call\'s E_TOOL result; after it returned it is only logged; the process lives and nothing runs twice', async () => {
    const daemon = await sharedSeamsDaemon();
    const before = await daemon.send({ input: 'whats your pid', instanceKey: 'stray' });
    expect(before.body.output).toMatch(/^pid \d+$/);

    const waited = await daemon.send({ input: 'fire and wait', instanceKey: 'stray' });
    expect(waited.status).toBe(200);
    expect(String(waited.body.output)).toStartWith('waited: E_TOOL: the tool left a promise unawaited and it rejected');

    const returned = await daemon.send({ input: 'fire and return', instanceKey: 'stray' });
    expect(returned.body.output).toBe('returned: returned at once');
    await daemon.waitForLog('E_TOOL_STRAY_ERROR logged for stray__fire-and-return', (l) => l.code === 'E_TOOL_STRAY_ERROR' && l.toolName === 'stray__fire-and-return');

    const after = await daemon.send({ input: 'whats your pid', instanceKey: 'stray' });
    expect(after.body.output).toBe(before.body.output);
    const executions = readFileSync(join(instancePaths(daemon.stateRoot, 'seams', 'good', 'stray').workdir, 'executions.log'), 'utf8').trim().split('\n');
    expect(executions.map((line) => line.split(' ')[0])).toEqual(['fire-and-wait', 'fire-and-return']);
    expect((await row(daemon, 'good', 'stray'))?.restarts).toBe(0);
  });
});
