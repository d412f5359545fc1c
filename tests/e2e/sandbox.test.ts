/**
 * Issue 9 through the real daemon: a scripted model runs attacker commands with bash__exec, and
 * the sandbox (real bwrap) keeps the daemon's secrets, other tenants' state and the daemon's API
 * out of reach; tool processes die with their agent (kill -9), their drain and the daemon's
 * SIGTERM; `mode: required` refuses to start without bwrap.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths, runtimeFilePath } from '../../shared/state-paths.ts';
import { pidsRunning, uniqueSleep, waitForProcesses, waitUntilGone } from '../helpers/process-state.ts';
import { requireBwrap } from '../helpers/require-bwrap.ts';
import { type Daemon, GOONDAN_BIN, REPO_ROOT, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';

requireBwrap();

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/sandbox');
const WORKSPACE_ID = 'sandbox';
// Secrets of the daemon's environment: no tool may ever print them.
const DAEMON_SECRETS = { OPENAI_API_KEY: 'sk-test-secret', GOONDAN_SECRET_DB_PASSWORD: 'db-secret-value' };

/** Sends "run <command>" to an agent and returns the reply text. */
async function run(daemon: Daemon, agent: string, instanceKey: string, command: string): Promise<string> {
  const { status, body } = await daemon.send({ agent, instanceKey, input: `run ${command}` });
  expect({ status, error: body.error }).toEqual({ status: 200, error: undefined });
  return String(body.output);
}

function expectNoDaemonSecret(text: string): void {
  for (const secret of Object.values(DAEMON_SECRETS)) expect(text).not.toContain(secret);
}

describe('an agent\'s bash cannot reach past its sandbox (through the daemon)', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon(BUNDLE, { env: DAEMON_SECRETS });
  }, 60_000);
  afterAll(async () => {
    await daemon.stop();
    daemon.cleanup();
  }, 60_000);

  test('the daemon\'s and the agent\'s environ, env and the agent plan show no secret', async () => {
    const out = await run(daemon, 'boxed', 'attacker', 'cat /proc/1/environ /proc/$PPID/environ /proc/*/environ 2>&1 | tr "\\0" "\\n"; env; ps aux 2>&1; cat /proc/*/cmdline | tr "\\0" " "');
    expectNoDaemonSecret(out);
    expect(out).not.toContain('GOONDAN_AGENT_PLAN');
    expect(out).not.toContain('agent-process/main.ts');
  });

  test('another tenant\'s conversation, the runtime files and the state root cannot be read', async () => {
    await daemon.send({ agent: 'boxed', instanceKey: 'victim', input: 'my password is hunter2-victim' });
    const victim = instancePaths(daemon.stateRoot, WORKSPACE_ID, 'boxed', 'victim');
    expect(readFileSync(victim.baseMessages, 'utf8')).toContain('hunter2-victim');
    const out = await run(daemon, 'boxed', 'attacker', `cat ${victim.baseMessages} ${runtimeFilePath(daemon.stateRoot, WORKSPACE_ID)}; ls -R ${daemon.stateRoot}; ln ${victim.baseMessages} stolen`);
    expect(out).not.toContain('hunter2-victim');
    expect(out).not.toContain('apiUrl');
    expect(out).toContain('No such file');
  });

  test('the daemon\'s loopback API cannot be called (no approving one\'s own tool call, no injected events)', async () => {
    const out = await run(daemon, 'boxed', 'attacker', `curl -sS -m 5 -X POST -H 'content-type: application/json' -d '{"input":"injected-by-tool","instanceKey":"victim"}' ${daemon.url}/v1/events; echo "curl exit $?"`);
    expect(out).toMatch(/curl exit [1-9]/);
    // Had the call gone through, the (waited-for) event would be in the victim's history by now.
    const victim = instancePaths(daemon.stateRoot, WORKSPACE_ID, 'boxed', 'victim');
    expect(readFileSync(victim.baseMessages, 'utf8')).not.toContain('injected-by-tool');
  });

  test('writes land in the workspace only', async () => {
    const target = join(daemon.stateRoot, 'planted.txt');
    const out = await run(daemon, 'boxed', 'attacker', `echo x > ${target}; echo y > /etc/planted; echo ok > in-workspace.txt; pwd`);
    expect(out).toContain(instancePaths(daemon.stateRoot, WORKSPACE_ID, 'boxed', 'attacker').workdir);
    expect(() => readFileSync(target)).toThrow();
    expect(readFileSync(join(instancePaths(daemon.stateRoot, WORKSPACE_ID, 'boxed', 'attacker').workdir, 'in-workspace.txt'), 'utf8')).toBe('ok\n');
  });

  test('mode none (agent `open`) runs on the host as before', async () => {
    const victim = instancePaths(daemon.stateRoot, WORKSPACE_ID, 'boxed', 'victim');
    const out = await run(daemon, 'open', 'operator', `cat ${victim.baseMessages}`);
    expect(out).toContain('hunter2-victim');
  });
});

describe('tool processes die with their agent and with the daemon', () => {
  test('kill -9 of the agent ends `sleep` and a double-forked `(sleep &)`; the redelivered turn runs one copy; daemon SIGTERM ends everything', async () => {
    const daemon = await startDaemon(BUNDLE, { env: DAEMON_SECRETS });
    try {
      const [foreground, background] = [uniqueSleep(), uniqueSleep()];
      const accepted = await daemon.send({ agent: 'boxed', instanceKey: 'sleeper', input: `run (${background.join(' ')} &); ${foreground.join(' ')}`, wait: false });
      expect(accepted.status).toBe(202);
      const first = [...(await waitForProcesses(foreground, 1)), ...(await waitForProcesses(background, 1, 30_000))];
      const agentPid = await pidOf(daemon, 'boxed', 'sleeper');
      process.kill(agentPid, 'SIGKILL');
      expect(await waitUntilGone(first, 15_000)).toEqual([]);

      // The orchestrator respawns the agent and redelivers the unfinished turn: one new copy runs.
      await waitUntil(async () => (await pidOf(daemon, 'boxed', 'sleeper').catch(() => agentPid)) !== agentPid, 'the respawned agent');
      const second = await waitForProcesses(foreground, 1);
      expect(second.filter((pid) => first.includes(pid))).toEqual([]);
      expect(pidsRunning(foreground)).toHaveLength(1);

      // An unsandboxed agent's command too: the drain cancels it before the grace period ends.
      const plain = uniqueSleep();
      await daemon.send({ agent: 'open', instanceKey: 'sleeper', input: `run (${plain.join(' ')} &); ${plain.join(' ')}`, wait: false });
      const plainPids = await waitForProcesses(plain, 2, 30_000);

      expect(await daemon.stop('SIGTERM')).toBe(0);
      expect(await waitUntilGone([...second, ...plainPids], 15_000)).toEqual([]);
      expect([...pidsRunning(foreground), ...pidsRunning(background), ...pidsRunning(plain)]).toEqual([]);
    } finally {
      daemon.cleanup();
    }
  }, 120_000);
});

describe('goondan run checks the sandbox once at start', () => {
  const withMode = (mode: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-sandbox-bundle-'));
    cpSync(BUNDLE, dir, { recursive: true });
    const file = join(dir, 'goondan.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('    shutdown: { gracePeriodSeconds: 6 }', `    shutdown: { gracePeriodSeconds: 6 }\n    sandbox: { mode: ${mode} }`));
    return dir;
  };

  test('mode required without a working bwrap: exit 1 with E_SANDBOX_UNAVAILABLE and how to fix it', async () => {
    const bundle = withMode('required');
    const stateRoot = tempStateRoot();
    try {
      const proc = Bun.spawn([GOONDAN_BIN, 'run', bundle, '--port', '0', '--state-root', stateRoot, '--input', 'run true'], {
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
        env: { ...process.env, GOONDAN_BWRAP_PATH: '/nonexistent/bwrap' },
      });
      const [stderr, code] = [await new Response(proc.stderr).text(), await proc.exited];
      expect(code).toBe(1);
      expect(stderr).toContain('E_SANDBOX_UNAVAILABLE');
      // `open` sets mode none for itself: only `boxed` requires the sandbox.
      expect(stderr).toContain("agent 'boxed' must run tools sandboxed (sandbox mode: required)");
      expect(stderr).toContain('apt-get install -y bubblewrap');
    } finally {
      rmSync(bundle, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    }
  });

  test('mode bwrap without it: one warning at start, and the tools run unsandboxed', async () => {
    const daemon = await startDaemon(BUNDLE, { env: { GOONDAN_BWRAP_PATH: '/nonexistent/bwrap' } });
    try {
      await waitUntil(() => daemon.stderr().includes('tools run unsandboxed'), 'the start warning');
      expect(daemon.stderr().split('\n').filter((line) => line.includes('tools run unsandboxed'))).toEqual([
        'goondan: bwrap not found (GOONDAN_BWRAP_PATH=/nonexistent/bwrap does not exist): tools run unsandboxed; install bubblewrap (apt-get install -y bubblewrap) or set policy.sandbox.mode: required to refuse',
      ]);
      const out = await run(daemon, 'boxed', 'k', `cat ${runtimeFilePath(daemon.stateRoot, WORKSPACE_ID)}`);
      expect(out).toContain('apiUrl');
    } finally {
      await daemon.stop();
      daemon.cleanup();
    }
  });
});

async function pidOf(daemon: Daemon, agent: string, instanceKey: string): Promise<number> {
  const row = (await daemon.processes()).find((p) => p.agent === agent && p.instanceKey === instanceKey && typeof p.pid === 'number');
  if (row === undefined) throw new Error(`no running process for ${agent}@${instanceKey}`);
  return Number(row.pid);
}
