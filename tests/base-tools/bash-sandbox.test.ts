/**
 * Issue 9: bash commands run inside bubblewrap. What the sandbox shows, hides and refuses, proved
 * with real bwrap and real processes (the handler is called directly; tests/e2e/sandbox.test.ts
 * does the same through the daemon).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handlers } from '../../bundles/base/tools/bash/index.ts';
import type { JsonObject, SandboxPlan } from '../../shared/types/index.ts';
import { DEFAULT_SANDBOX_LIMITS } from '../../shared/config/sandbox-plan.ts';
import { requireBwrap } from '../helpers/require-bwrap.ts';
import { asObject, callTool, createToolContext, toolError, type TestToolContext } from './tool-context.ts';

// Limits are felt in CPU time and process counts: on a loaded machine that is slow in wall time.
const SLOW_TEST_MS = 60_000;

requireBwrap();
const FORK_FIXTURE = join(import.meta.dir, '../fixtures/sandbox/bash-as-user.ts');

const made: TestToolContext[] = [];
const savedEnv = { ...process.env };
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

function setup(sandbox: Partial<SandboxPlan> = {}, hiddenFiles?: string[]): TestToolContext {
  const t = createToolContext({ sandbox, ...(hiddenFiles ? { hiddenFiles } : {}) });
  made.push(t);
  // Another instance's state beside this one, as in a real state root.
  writeFileSync(join(t.outside, 'secret.txt'), 'other-tenant-secret\n');
  return t;
}

const exec = async (t: TestToolContext, command: string, extra: JsonObject = {}): Promise<JsonObject> =>
  asObject(await callTool(handlers, 'exec', t.ctx, { command, timeoutMs: 30_000, ...extra }));

describe('the sandbox shows the system read-only and the workspace read-write', () => {
  test('system files and tools work: cat /etc/passwd, sh, git', async () => {
    const t = setup();
    const out = await exec(t, 'cat /etc/passwd | head -1; git --version');
    expect(out.exitCode).toBe(0);
    expect(String(out.stdout)).toMatch(/^root:/);
    expect(String(out.stdout)).toContain('git version');
  });

  test('the workspace is at its own path, writable, and HOME', async () => {
    const t = setup();
    const out = await exec(t, 'pwd; echo "$HOME"; echo data > made-inside.txt');
    expect(out.stdout).toBe(`${t.workdir}\n${t.workdir}\n`);
    expect(readFileSync(join(t.workdir, 'made-inside.txt'), 'utf8')).toBe('data\n');
  });

  test('nothing outside the workspace can be written: system dirs are read-only, the rest is not there', async () => {
    const t = setup();
    const out = await exec(t, `touch /usr/goondan-escape; touch /etc/goondan-escape; mkdir -p ${t.outside} && echo x > ${join(t.outside, 'planted.txt')}; echo done`);
    expect(String(out.stderr)).toContain('Read-only file system');
    expect(existsSync('/usr/goondan-escape')).toBe(false);
    expect(existsSync('/etc/goondan-escape')).toBe(false);
    // The write landed in the sandbox's own throw-away root, not on the host.
    expect(existsSync(join(t.outside, 'planted.txt'))).toBe(false);
  });

  test('capabilities are dropped: read-only mounts cannot be remounted writable, no nested user namespaces', async () => {
    const t = setup();
    const out = await exec(t, 'mount -o remount,bind,rw /usr && touch /usr/goondan-remounted; unshare --user true && echo nested-userns');
    expect(existsSync('/usr/goondan-remounted')).toBe(false);
    expect(out.stdout).not.toContain('nested-userns');
  });

  test('/tmp is the sandbox\'s own: the host\'s files there are not', async () => {
    const t = setup();
    writeFileSync('/tmp/goondan-host-tmp-file', 'host');
    try {
      const out = await exec(t, 'ls -A /tmp; echo end');
      // Only the directory leading to this test's workspace (when it lies under /tmp) is there.
      const leading = t.workdir.startsWith('/tmp/') ? `${t.workdir.split('/')[2]}\n` : '';
      expect(out.stdout).toBe(`${leading}end\n`);
    } finally {
      Bun.spawnSync(['rm', '-f', '/tmp/goondan-host-tmp-file']);
    }
  });
});

describe('the sandbox hides the state root, other instances and the host\'s secrets', () => {
  test('another instance\'s files beside the workspace cannot be read', async () => {
    const t = setup();
    const out = await exec(t, `cat ${join(t.outside, 'secret.txt')}; ls ${join(t.workdir, '..')}`);
    expect(out.stdout).not.toContain('other-tenant-secret');
    expect(out.stdout).toBe('workspace\n');
    expect(String(out.stderr)).toContain('No such file');
  });

  test('a hard link cannot reach a file outside the workspace', async () => {
    const t = setup();
    await exec(t, `ln ${join(t.outside, 'secret.txt')} stolen.txt`);
    expect(existsSync(join(t.workdir, 'stolen.txt'))).toBe(false);
  });

  test('the state root stays hidden even under a read-only path the operator shows', async () => {
    // The host's /tmp (which holds this test's state root) is shown; the state root is not.
    const t = setup({ readOnlyPaths: [realpathSync(tmpdir())] });
    const out = await exec(t, `test -d ${realpathSync(tmpdir())} && echo tmp-shown; cat ${join(t.outside, 'secret.txt')}`);
    expect(out.stdout).toBe('tmp-shown\n');
    expect(String(out.stderr)).toContain('No such file');
  });

  test('readOnlyPaths are visible and read-only', async () => {
    const shared = createToolContext();
    made.push(shared);
    writeFileSync(join(shared.workdir, 'tool.txt'), 'toolchain\n');
    const t = setup({ readOnlyPaths: [shared.workdir] });
    const out = await exec(t, `cat ${join(shared.workdir, 'tool.txt')}; touch ${join(shared.workdir, 'new.txt')}`);
    expect(out.stdout).toBe('toolchain\n');
    expect(String(out.stderr)).toContain('Read-only file system');
    expect(existsSync(join(shared.workdir, 'new.txt'))).toBe(false);
  });

  test('/proc shows only the sandbox: no environ of the agent or the daemon', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-secret';
    process.env.GOONDAN_API_TOKEN = 'goondan-token-secret';
    const t = setup();
    const out = await exec(t, 'cat /proc/1/environ /proc/$PPID/environ /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; cat /proc/*/cmdline | tr "\\0" " "; echo; ls /proc | grep -c "^[0-9]"');
    const stdout = String(out.stdout);
    expect(stdout).not.toContain('sk-test-secret');
    expect(stdout).not.toContain('goondan-token-secret');
    expect(stdout).not.toContain(process.execPath);
    // bwrap's init, the shell and its pipeline: a handful, not the host's process table.
    expect(Number(stdout.trim().split('\n').at(-1))).toBeLessThan(10);
  });

  test('env shows no secrets of the agent process', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-secret';
    process.env.GOONDAN_AGENT_PLAN = '{"model":{"apiKey":"sk-plan-secret"}}';
    const t = setup();
    const out = String((await exec(t, 'env')).stdout);
    expect(out).not.toContain('sk-test-secret');
    expect(out).not.toContain('sk-plan-secret');
    expect(out).toContain(`HOME=${t.workdir}\n`);
  });

  test('loader variables in a call\'s env reach the command inside, never bwrap on the host (LD_PRELOAD ran a library on the host)', async () => {
    const t = setup();
    // LD_DEBUG makes the loader of every program it reaches say which libraries it loads, and for whom.
    const out = await exec(t, 'printenv LD_DEBUG', { env: { LD_DEBUG: 'libs' } });
    expect(out.stdout).toBe('libs\n');
    const stderr = String(out.stderr);
    expect(stderr).toContain('calling init:');
    expect(stderr).not.toMatch(/bwrap/);
  });

  test('the daemon\'s env file reads empty, even inside a directory the operator shows', async () => {
    const shown = join(realpathSync(tmpdir()), `goondan-etc-${process.pid}-${Date.now()}`);
    mkdirSync(shown);
    writeFileSync(join(shown, 'goondan.env'), 'OPENAI_API_KEY=sk-in-the-env-file\n');
    writeFileSync(join(shown, 'notes.txt'), 'visible\n');
    try {
      const t = setup({ readOnlyPaths: [shown] }, [join(shown, 'goondan.env')]);
      const out = await exec(t, `cat ${shown}/notes.txt; cat ${shown}/goondan.env; echo end`);
      expect(out.stdout).toBe('visible\nend\n');
    } finally {
      rmSync(shown, { recursive: true, force: true });
    }
  });

  test('password hashes are masked even though the sandbox runs as the daemon\'s user', async () => {
    const t = setup();
    const out = await exec(t, 'cat /etc/shadow /etc/gshadow; echo end');
    expect(out.stdout).toBe('end\n');
  });
});

describe('the network is off unless the sandbox allows it', () => {
  const probe = (port: number) => `/usr/bin/perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:${port}", Timeout => 5) or die "connect failed: $!\\n"; print $s "GET / HTTP/1.0\\r\\n\\r\\n"; print while <$s>'`;

  test('a server on the host\'s loopback cannot be reached by default', async () => {
    using server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('host-loopback-reached') });
    const t = setup();
    const out = await exec(t, probe(Number(server.port)));
    expect(out.stdout).not.toContain('host-loopback-reached');
    expect(String(out.stderr)).toContain('connect failed');
  });

  test('with network: true it can', async () => {
    using server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('host-loopback-reached') });
    const t = setup({ network: true });
    const out = await exec(t, probe(Number(server.port)));
    expect(String(out.stdout)).toContain('host-loopback-reached');
  });
});

describe('resource limits stop runaway commands', () => {
  test('memoryMb stops a memory hog', async () => {
    const t = setup({ limits: { ...DEFAULT_SANDBOX_LIMITS, memoryMb: 200 } });
    const out = await exec(t, `/usr/bin/perl -e '$x = "a" x (400 * 1024 * 1024); print "allocated\\n"'`);
    expect(out.stdout).not.toContain('allocated');
    expect(out.exitCode).not.toBe(0);
    expect(String(out.stderr)).toContain('Out of memory');
  });

  test('cpuSeconds stops a busy loop', async () => {
    const t = setup({ limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 1 } });
    const out = await exec(t, 'while :; do :; done', { timeoutMs: 60_000 });
    expect(out.timedOut).toBe(false);
    expect(out.exitCode).not.toBe(0);
  }, SLOW_TEST_MS);

  test('fileSizeMb stops a file from growing past it', async () => {
    const t = setup({ limits: { ...DEFAULT_SANDBOX_LIMITS, fileSizeMb: 1 } });
    const out = await exec(t, 'head -c 3000000 /dev/zero > big.bin; echo "exit=$?"');
    expect(String(out.stderr)).toMatch(/File (too large|size limit exceeded)/);
    expect(statSync(join(t.workdir, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
  });

  test('processes stops a fork bomb (as a daemon that is not root: the kernel exempts root)', async () => {
    const run = (limit: number): JsonObject => {
      const t = createToolContext();
      made.push(t);
      const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
      if (asUser.length > 0) Bun.spawnSync(['chown', '-R', '65534:65534', join(t.workdir, '..')]);
      const bomb = 'for i in $(seq 60); do sleep 1 & done 2>&1 | head -1; wait; echo finished';
      const proc = Bun.spawnSync([...asUser, process.execPath, FORK_FIXTURE, t.workdir, String(limit), bomb], { stderr: 'pipe' });
      expect(proc.exitCode).toBe(0);
      return asObject(JSON.parse(proc.stdout.toString()));
    };
    // The kernel also counts the user's tasks outside the sandbox (this fixture's own threads, more
    // of them while Bun compiles it on a cold cache): 40 leaves the bomb room to start, not to finish.
    const limitedRun = run(40);
    // A fork refused in the loop lands in stdout (2>&1); one refused to the shell itself, in stderr.
    const reported = `${String(limitedRun.stdout)}${String(limitedRun.stderr)}`;
    // The whole result on a failure: what the call reported says why the bomb was not stopped.
    expect({ stopped: /Cannot fork|Resource temporarily unavailable/.test(reported), result: limitedRun }).toMatchObject({ stopped: true, result: { timedOut: false } });
    expect(run(0).stdout).toBe('finished\n');
  }, SLOW_TEST_MS);

  test('the limits apply without the sandbox too (mode none)', async () => {
    const t = setup({ mode: 'none', limits: { ...DEFAULT_SANDBOX_LIMITS, fileSizeMb: 1 } });
    await exec(t, 'head -c 3000000 /dev/zero > big.bin');
    expect(statSync(join(t.workdir, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
  });
});

describe('sandbox modes', () => {
  test('mode none runs on the host as before: the files beside the workspace are readable', async () => {
    const t = setup({ mode: 'none' });
    const out = await exec(t, `cat ${join(t.outside, 'secret.txt')}`);
    expect(out.stdout).toBe('other-tenant-secret\n');
  });

  test('mode required without a working bwrap fails with E_SANDBOX_UNAVAILABLE and runs nothing', async () => {
    process.env.GOONDAN_BWRAP_PATH = '/nonexistent/bwrap';
    const t = setup({ mode: 'required' });
    const error = await toolError(callTool(handlers, 'exec', t.ctx, { command: 'touch ran.txt' }));
    expect(error.code).toBe('E_SANDBOX_UNAVAILABLE');
    expect(error.message).toContain('/nonexistent/bwrap');
    expect(error.suggestion).toContain('apt-get install -y bubblewrap');
    expect(existsSync(join(t.workdir, 'ran.txt'))).toBe(false);
  });

  test('mode bwrap without a working bwrap runs unsandboxed and warns', async () => {
    process.env.GOONDAN_BWRAP_PATH = '/nonexistent/bwrap-for-fallback';
    const t = setup({ mode: 'bwrap' });
    const out = await exec(t, `cat ${join(t.outside, 'secret.txt')}`);
    expect(out.stdout).toBe('other-tenant-secret\n');
    const warning = t
      .readLog()
      .split('\n')
      .filter((line) => line.includes('W_SANDBOX_UNAVAILABLE'));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toContain('tools run unsandboxed; install bubblewrap (apt-get install -y bubblewrap) or set policy.sandbox.mode: required to refuse');
  });
});
