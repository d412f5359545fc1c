/**
 * Start-up failures (ARCHITECTURE §2, issue 8): a child that cannot start says `runtime.failed`;
 * every caller waiting on that instance is answered at once with the real error, the process stays
 * `failed` with its lastError and is not restarted until someone restarts it. A start that never
 * says `runtime.started` in time is E_AGENT_START_TIMEOUT and is retried like a crash.
 */
import { describe, expect, test } from 'bun:test';
import { errorShape } from '../../shared/errors/index.ts';
import { coreFixtures } from './helpers/core-fixture.ts';
import { settled } from './helpers/eventually.ts';

const fixture = coreFixtures();

const HANDLERS_MISSING = errorShape('E_TOOL_HANDLERS_MISSING', 'user', "tool 'calc' exports no handlers", {
  suggestion: 'export `handlers` from the entry module',
  details: { file: '/bundle/tools/calc.ts' },
});

describe('a start-up failure that cannot succeed (retryable: false)', () => {
  test('every waiting caller is answered at once with the real error, marked as a start-up failure', async () => {
    const f = fixture({ behaviour: { autoStart: false } });
    const replies = [f.ask('a', 'first', { instanceKey: 'k' }), f.ask('a', 'second', { instanceKey: 'k' })];
    const child = await f.launcher.waitForAssigned('a', 'k');
    child.failed(HANDLERS_MISSING, false);
    for (const reply of replies) {
      const outcome = await settled(reply, 'the answer to a caller of an agent that cannot start');
      expect(outcome.status).toBe('error');
      expect(outcome.error).toMatchObject({
        code: 'E_TOOL_HANDLERS_MISSING',
        message: HANDLERS_MISSING.message,
        suggestion: HANDLERS_MISSING.suggestion,
        details: { file: '/bundle/tools/calc.ts', agent: 'a', instanceKey: 'k', phase: 'startup' },
      });
    }
    // The callers were told their requests cannot run: they do not run later behind their backs.
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'k' })).toBe(0);
  });

  test('the process is failed with lastError, counted in goondan_start_failures_total, and not respawned', async () => {
    const f = fixture({ behaviour: { autoStart: false } });
    const reply = f.ask('a', 'first', { instanceKey: 'k' });
    const child = await f.launcher.waitForAssigned('a', 'k');
    child.failed(HANDLERS_MISSING, false);
    await settled(reply, 'the first answer');
    child.crash(1);
    const proc = await f.waitForProcess('a', 'k', (p) => !p.alive && p.status === 'failed', 'failed after its child exited');
    expect(proc.lastError).toMatchObject({ code: 'E_TOOL_HANDLERS_MISSING', message: HANDLERS_MISSING.message });
    const row = (await f.core.processRows()).find((r) => r.agent === 'a' && r.instanceKey === 'k');
    expect(row).toMatchObject({ status: 'failed', pid: null, lastError: { code: 'E_TOOL_HANDLERS_MISSING' } });
    expect(f.metrics()).toContain('goondan_start_failures_total{agent="a",code="E_TOOL_HANDLERS_MISSING"} 1');
    expect(proc.consecutiveCrashes).toBe(0);
    expect(f.logs.some((l) => l.msg === 'not restarting a process that cannot start; fix the bundle, then restart it')).toBe(true);

    // A later caller is answered at once too (same error, same marking), without a new launch.
    const later = await settled(f.ask('a', 'later', { instanceKey: 'k' }), 'the answer to a later caller');
    expect(later.error).toMatchObject({ code: 'E_TOOL_HANDLERS_MISSING', details: { agent: 'a', instanceKey: 'k', phase: 'startup' } });
    expect(f.launcher.children).toHaveLength(1);
    f.core.supervisor.reconcile();
    expect(f.launcher.children).toHaveLength(1);
  });

  test('restart brings a failed instance back with a clean record', async () => {
    const f = fixture({ behaviour: { autoStart: false } });
    void f.ask('a', 'first', { instanceKey: 'k' });
    const broken = await f.launcher.waitForAssigned('a', 'k');
    broken.failed(HANDLERS_MISSING, false);
    broken.crash(1);
    await f.waitForProcess('a', 'k', (p) => p.status === 'failed' && !p.alive, 'failed');
    f.tell('a', 'kept for the next start', { instanceKey: 'k' });
    // The bundle was fixed: the next child starts.
    f.launcher.behaviour.autoStart = true;
    expect(await settled(f.core.restart((p) => p.key === 'a:k', 'restart'), 'restart')).toBe(1);
    const fixed = await f.launcher.waitForAssigned('a', 'k', 2);
    expect((await fixed.waitForWork(1)).input).toBe('kept for the next start');
    const proc = f.process('a', 'k');
    expect(proc.status).toBe('processing');
    expect(proc.startFailure).toBeUndefined();
    const reply = f.ask('a', 'works now', { instanceKey: 'k' });
    fixed.runTurn(await fixed.waitForWork(2), 'yes');
    expect(await settled(reply, 'the answer after the restart')).toMatchObject({ status: 'ok', output: 'yes' });
  });
});

describe('a start-up failure that may succeed later', () => {
  test('runtime.failed with retryable: true answers the callers and is retried like a crash', async () => {
    const f = fixture({ behaviour: { autoStart: false } });
    const reply = f.ask('a', 'first', { instanceKey: 'k' });
    const flaky = await f.launcher.waitForAssigned('a', 'k');
    flaky.failed(errorShape('E_MODEL_UNREACHABLE', 'provider', 'the model endpoint refused the connection'), true);
    const outcome = await settled(reply, 'the answer to the caller');
    expect(outcome.error).toMatchObject({ code: 'E_MODEL_UNREACHABLE', details: { phase: 'startup' } });
    f.launcher.behaviour.autoStart = true;
    flaky.crash(1);
    const retried = await f.launcher.waitForAssigned('a', 'k', 2);
    await f.waitForProcess('a', 'k', (p) => p.ready, 'started on the retry');
    expect(f.process('a', 'k').consecutiveCrashes).toBe(1);
    expect(retried.alive).toBe(true);
  });

  test('a start that never says runtime.started within startupTimeoutMs is E_AGENT_START_TIMEOUT, killed and retried', async () => {
    const f = fixture({ startupTimeoutMs: 40, behaviour: { autoStart: false } });
    const reply = f.ask('a', 'hello', { instanceKey: 'k' });
    const stuck = await f.launcher.waitForAssigned('a', 'k');
    const outcome = await settled(reply, 'the start-up timeout answer');
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ code: 'E_AGENT_START_TIMEOUT', details: { agent: 'a', instanceKey: 'k', phase: 'startup' } });
    expect(stuck.signals).toEqual(['SIGKILL']);
    expect(f.metrics()).toContain('goondan_start_failures_total{agent="a",code="E_AGENT_START_TIMEOUT"} 1');
    // Crash semantics: respawned at once, and the queued event runs once a start succeeds.
    const second = await f.launcher.waitForAssigned('a', 'k', 2);
    expect(f.process('a', 'k')).toMatchObject({ consecutiveCrashes: 1, lastError: { code: 'E_AGENT_START_TIMEOUT' } });
    second.started();
    expect((await second.waitForWork(1)).input).toBe('hello');
  });
});
