import { afterEach, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handlers } from '../../bundles/base/tools/bash/index.ts';
import type { JsonObject, SandboxMode } from '../../shared/types/index.ts';
import { requireBwrap } from '../helpers/require-bwrap.ts';
import { killIfRunning, uniqueSleep, waitForProcesses, waitUntilGone } from '../helpers/process-state.ts';
import { asObject, callTool, createToolContext, toolError, type TestConfig, type TestToolContext } from './tool-context.ts';

const FIXTURES = join(import.meta.dir, '../fixtures/base-tools/scripts');
// These tests run sandboxed (the default) and also without the sandbox where they are about processes.
requireBwrap();
// Waits for real processes have 10 s deadlines; the test itself may take longer on a loaded machine.
const PROCESS_TEST_MS = 30_000;

let current: TestToolContext | undefined;
let started: number[] = [];
function setup(config: TestConfig = {}, mode: SandboxMode = 'bwrap'): TestToolContext {
  current = createToolContext({ config, sandbox: { mode } });
  return current;
}
afterEach(() => {
  killIfRunning(started);
  started = [];
  current?.cleanup();
  current = undefined;
});

const exec = async (t: TestToolContext, input: unknown): Promise<JsonObject> => asObject(await callTool(handlers, 'exec', t.ctx, input));

describe('bash__exec runs in the workspace and reports the outcome', () => {
  test('stdout, exit code 0 and the result fields', async () => {
    const t = setup();
    const out = await exec(t, { command: 'echo hello; echo warn >&2' });
    expect(out).toMatchObject({ stdout: 'hello\n', stderr: 'warn\n', exitCode: 0, signal: null, timedOut: false, truncated: false, cwd: '.' });
    expect(typeof out.durationMs).toBe('number');
  });

  test('a non-zero exit is a normal result, not an error', async () => {
    const t = setup();
    const out = await exec(t, { command: 'echo oops >&2; exit 7' });
    expect(out.exitCode).toBe(7);
    expect(out.stderr).toBe('oops\n');
  });

  test('the default working directory is ctx.workdir; cwd is relative to it', async () => {
    const t = setup();
    mkdirSync(join(t.workdir, 'sub/dir'), { recursive: true });
    expect((await exec(t, { command: 'pwd' })).stdout).toBe(`${t.workdir}\n`);
    const out = await exec(t, { command: 'pwd', cwd: 'sub/dir' });
    expect(out.stdout).toBe(`${join(t.workdir, 'sub/dir')}\n`);
    expect(out.cwd).toBe('sub/dir');
  });

  test('stdin is closed, so a command reading it does not hang', async () => {
    const t = setup();
    const out = await exec(t, { command: 'cat; echo done', timeoutMs: 10_000 });
    expect(out).toMatchObject({ stdout: 'done\n', timedOut: false });
  });

  test('a background job does not keep the call waiting', async () => {
    const t = setup({ drainMs: 100 });
    const out = await exec(t, { command: `${uniqueSleep().join(' ')} & echo started`, timeoutMs: 20_000 });
    expect(out).toMatchObject({ stdout: 'started\n', timedOut: false });
    expect(Number(out.durationMs)).toBeLessThan(60_000);
  });
});

describe('bash__exec cwd must stay inside the workspace', () => {
  test('".." out of the workspace is refused', async () => {
    const t = setup();
    const error = await toolError(exec(t, { command: 'pwd', cwd: '..' }));
    expect(error.code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect(error.message).toContain('cwd');
    expect(error.suggestion).toBeDefined();
  });

  test('an absolute directory outside is refused', async () => {
    const t = setup();
    expect((await toolError(exec(t, { command: 'pwd', cwd: t.outside }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
  });

  test('a symlink inside the workspace that points outside is refused', async () => {
    const t = setup();
    symlinkSync(t.outside, join(t.workdir, 'escape'));
    const error = await toolError(exec(t, { command: 'pwd', cwd: 'escape' }));
    expect(error.code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect(error.message).toContain('symbolic link');
  });

  test('config.allowOutsideWorkdir lifts the check', async () => {
    const t = setup({ allowOutsideWorkdir: true });
    expect((await exec(t, { command: 'pwd', cwd: t.outside })).stdout).toBe(`${t.outside}\n`);
  });

  test('config.roots allows exactly those extra directories', async () => {
    const t = setup(({ outside }) => ({ roots: [outside] }));
    expect((await exec(t, { command: 'pwd', cwd: t.outside })).cwd).toBe(t.outside);
    expect((await toolError(exec(t, { command: 'pwd', cwd: '/' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
  });

  test('a missing cwd is E_BASH_CWD', async () => {
    const t = setup();
    expect((await toolError(exec(t, { command: 'pwd', cwd: 'nope' }))).code).toBe('E_BASH_CWD');
  });
});

describe.each(['bwrap', 'none'] as const)('bash processes end with their call (sandbox mode %s)', (mode) => {
  test('on timeout the shell and its background children are killed', async () => {
    const t = setup({}, mode);
    const sleep = uniqueSleep().join(' ');
    const call = exec(t, { command: `${sleep} & ${sleep} & wait`, timeoutMs: 1500 });
    started = await waitForProcesses(sleep.split(' '), 2);
    const out = await call;
    expect(out.timedOut).toBe(true);
    expect(out.exitCode).toBeNull();
    expect(['SIGTERM', 'SIGKILL']).toContain(String(out.signal));
    expect(String(out.note)).toContain('Killed after 1500 ms');
    expect(await waitUntilGone(started)).toEqual([]);
  }, PROCESS_TEST_MS);

  test('processes that ignore SIGTERM are killed too', async () => {
    const t = setup({ killGraceMs: 300 }, mode);
    const sleep = uniqueSleep();
    const call = exec(t, { command: `trap '' TERM; ${sleep.join(' ')} & wait; wait`, timeoutMs: 1000 });
    started = await waitForProcesses(sleep, 1);
    const out = await call;
    expect(out.timedOut).toBe(true);
    expect(out.signal).toBe('SIGKILL');
    expect(await waitUntilGone(started)).toEqual([]);
  }, PROCESS_TEST_MS);

  test('an aborted ctx.signal kills everything and fails the call with E_TOOL_ABORTED', async () => {
    const t = setup({}, mode);
    const sleep = uniqueSleep();
    const call = exec(t, { command: `${sleep.join(' ')} & wait`, timeoutMs: 60_000 });
    started = await waitForProcesses(sleep, 1);
    t.controller.abort();
    expect((await toolError(call)).code).toBe('E_TOOL_ABORTED');
    expect(await waitUntilGone(started)).toEqual([]);
  }, PROCESS_TEST_MS);

  test('what a command leaves running in the background ends when the call returns', async () => {
    const t = setup({ drainMs: 100 }, mode);
    const sleep = uniqueSleep().join(' ');
    // The call waits for the test's "go" file, so the test sees the background jobs run first.
    const call = exec(t, { command: `${sleep} & (${sleep} &); while [ ! -e go ]; do sleep 0.05; done; echo done`, timeoutMs: 60_000 });
    started = await waitForProcesses(sleep.split(' '), 2);
    writeFileSync(join(t.workdir, 'go'), '');
    expect((await call).stdout).toBe('done\n');
    expect(await waitUntilGone(started)).toEqual([]);
  }, PROCESS_TEST_MS);

  test('a call on an already aborted signal does not start anything', async () => {
    const t = setup({}, mode);
    t.controller.abort();
    expect((await toolError(exec(t, { command: `touch ${join(t.workdir, 'ran')}` }))).code).toBe('E_TOOL_ABORTED');
    expect(existsSync(join(t.workdir, 'ran'))).toBe(false);
  }, PROCESS_TEST_MS);

  test('a script that starts children is killed with them on timeout', async () => {
    const t = setup({}, mode);
    copyFileSync(join(FIXTURES, 'spawn-sleepers.sh'), join(t.workdir, 'spawn.sh'));
    const sleep = uniqueSleep();
    const call = callTool(handlers, 'script', t.ctx, { path: 'spawn.sh', args: [sleep[1] ?? ''], shell: '/bin/sh', timeoutMs: 1500 });
    started = await waitForProcesses(sleep, 2);
    expect(asObject(await call).timedOut).toBe(true);
    expect(await waitUntilGone(started)).toEqual([]);
  }, PROCESS_TEST_MS);
});

describe('bash output caps', () => {
  test('output over maxOutputBytes keeps head and tail and sets truncated', async () => {
    const t = setup({ maxOutputBytes: 1000 });
    const out = await exec(t, { command: 'seq 1 100000' });
    expect(out.truncated).toBe(true);
    const stdout = String(out.stdout);
    expect(stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(stdout).toContain('bytes omitted');
    expect(stdout.length).toBeLessThan(1100);
    expect(Number(out.stdoutBytes)).toBeGreaterThan(500_000);
  });

  test('the cap applies per stream; the other stream stays whole', async () => {
    const t = setup({ maxOutputBytes: 100 });
    const out = await exec(t, { command: 'head -c 5000 /dev/zero | tr "\\0" a; echo short >&2' });
    expect(out.truncated).toBe(true);
    expect(out.stderr).toBe('short\n');
    expect(out.stdoutBytes).toBe(5000);
  });

  test('the default cap is 100 KB per stream', async () => {
    const t = setup();
    const out = await exec(t, { command: 'head -c 150000 /dev/zero | tr "\\0" b' });
    expect(out.truncated).toBe(true);
    expect(String(out.stdout).length).toBeLessThan(100_100);
    expect(String(out.stdout).length).toBeGreaterThan(99_000);
  });
});

describe('bash environment is explicit', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  });

  test('GOONDAN_* and credential-like variables of the agent process are not passed', async () => {
    process.env.GOONDAN_API_TOKEN = 'goondan-secret';
    process.env.OPENAI_API_KEY = 'sk-test-secret';
    process.env.UNRELATED_SETTING = 'plain';
    const t = setup();
    const out = await exec(t, { command: 'env' });
    expect(out.stdout).not.toContain('goondan-secret');
    expect(out.stdout).not.toContain('sk-test-secret');
    expect(out.stdout).not.toContain('UNRELATED_SETTING');
    expect(out.stdout).toContain('PATH=');
  });

  test('env of the call, config.env and config.inheritEnv are passed; prefixes skip secrets', async () => {
    process.env.MYAPP_MODE = 'dev';
    process.env.MYAPP_TOKEN = 'tok-secret';
    process.env.EXACT_API_KEY = 'named-exactly';
    const t = setup({ env: { FROM_CONFIG: 'c' }, inheritEnv: ['MYAPP_*', 'EXACT_API_KEY'] });
    const out = await exec(t, { command: 'env', env: { FROM_CALL: 'x', FROM_CONFIG: 'overridden' } });
    const stdout = String(out.stdout);
    expect(stdout).toContain('FROM_CALL=x\n');
    expect(stdout).toContain('FROM_CONFIG=overridden\n');
    expect(stdout).toContain('MYAPP_MODE=dev\n');
    expect(stdout).toContain('EXACT_API_KEY=named-exactly\n');
    expect(stdout).not.toContain('tok-secret');
  });

  test('the login shell keeps the PATH the command was given in front', async () => {
    const t = setup();
    const out = await exec(t, { command: 'echo "$PATH"', env: { PATH: '/custom/bin:/usr/bin:/bin' } });
    expect(String(out.stdout).startsWith('/custom/bin:/usr/bin:/bin')).toBe(true);
  });
});

describe('bash__script', () => {
  test('runs a workspace script with arguments, env and the default /bin/bash', async () => {
    const t = setup();
    mkdirSync(join(t.workdir, 'scripts'));
    copyFileSync(join(FIXTURES, 'greet.sh'), join(t.workdir, 'scripts/greet.sh'));
    const out = asObject(await callTool(handlers, 'script', t.ctx, { path: 'scripts/greet.sh', args: ['a b', 'c'], env: { GREETING: 'hi' } }));
    expect(out).toMatchObject({ stdout: `hello a b c\ncwd=${t.workdir}\ngreeting=hi\n`, stderr: 'to stderr\n', exitCode: 3 });
  });

  test('a missing script is E_BASH_SCRIPT_NOT_FOUND; one outside the workspace is refused', async () => {
    const t = setup();
    expect((await toolError(callTool(handlers, 'script', t.ctx, { path: 'missing.sh' }))).code).toBe('E_BASH_SCRIPT_NOT_FOUND');
    copyFileSync(join(FIXTURES, 'greet.sh'), join(t.outside, 'greet.sh'));
    expect((await toolError(callTool(handlers, 'script', t.ctx, { path: '../outside/greet.sh' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
  });

  test('an interpreter that does not exist is E_BASH_SPAWN', async () => {
    const t = setup();
    copyFileSync(join(FIXTURES, 'greet.sh'), join(t.workdir, 'greet.sh'));
    const error = await toolError(callTool(handlers, 'script', t.ctx, { path: 'greet.sh', shell: '/no/such/shell' }));
    expect(error.code).toBe('E_BASH_SPAWN');
  });
});

describe('bash rejects bad arguments and bad config with codes', () => {
  test.each([
    [{ command: 42 }, 'args.command: expected string but got integer'],
    [{}, 'missing required property "command"'],
    [{ command: 'true', extra: 1 }, 'unknown property "extra"'],
    [{ command: 'true', timeoutMs: 0 }, 'args.timeoutMs'],
    [{ command: 'true', env: { A: 1 } }, 'args.env.A'],
    ['echo hi', 'expected object'],
  ])('%j → E_TOOL_INVALID_ARGS', async (input, fragment) => {
    const t = setup();
    const error = await toolError(exec(t, input));
    expect(error.code).toBe('E_TOOL_INVALID_ARGS');
    expect(error.message).toContain(fragment);
    expect(error.suggestion).toContain('Required: command');
  });

  test('bad config is E_TOOL_CONFIG naming the key', async () => {
    const cases: Array<[JsonObject, string]> = [
      [{ maxOutputBytes: 'big' }, 'config.maxOutputBytes'],
      [{ maxOutputByte: 10 }, 'unknown property "maxOutputByte"'],
      [{ roots: ['relative/dir'] }, 'config.roots.0'],
    ];
    for (const [config, fragment] of cases) {
      const t = setup(config);
      const error = await toolError(exec(t, { command: 'true' }));
      expect(error.code).toBe('E_TOOL_CONFIG');
      expect(error.message).toContain(fragment);
      t.cleanup();
    }
  });
});
