/**
 * The tool permission policy end to end (issue 5; seed 004 §6): deny names its rule, allow rules
 * run, read-only tools pass, `ask` waits for a human through GET/POST /v1/approvals (once, for the
 * session, denied, timed out), a run with nobody to ask denies and says so, and the terminal
 * prompt of the interactive cli connector answers approvals; shell lines are judged by the commands
 * they would run (issue 9), through the real bash tool.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { DAEMON_TEST_MS, type Daemon, REPO_ROOT, startDaemon, startTerminalRun, tempStateRoot, terminalShows, waitFor } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/policy');
const workdir = (daemon: Daemon | { stateRoot: string }, key: string) => instancePaths(daemon.stateRoot, 'policy', 'coder', key).workdir;

/** The approval the given instance is waiting for (it appears once its turn reaches the tool call). */
async function nextApproval(daemon: Daemon, instanceKey: string): Promise<Record<string, unknown>> {
  const approvals = await waitFor(
    `a pending approval for instance ${instanceKey} in GET /v1/approvals`,
    async () => ((await (await daemon.api('/v1/approvals')).json()) as { approvals: Array<Record<string, unknown>> }).approvals,
    (pending) => pending.some((approval) => approval.instanceKey === instanceKey),
  );
  const found = approvals.find((approval) => approval.instanceKey === instanceKey);
  if (!found) throw new Error(`no approval for ${instanceKey}`);
  return found;
}

const decide = (daemon: Daemon, id: unknown, body: Record<string, unknown>) =>
  daemon.api(`/v1/approvals/${String(id)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * A daemon with nobody to approve (no GOONDAN_APPROVALS), its HOME a temporary directory: started by
 * the first test that asks, shared by those that do not stop it, stopped after the file.
 */
let noApprover: Promise<{ daemon: Daemon; home: string }> | undefined;
function daemonWithoutApprover(): Promise<{ daemon: Daemon; home: string }> {
  noApprover ??= (async () => {
    const home = mkdtempSync(join(tmpdir(), 'goondan-policy-home-'));
    return { daemon: await startDaemon(BUNDLE, { env: { HOME: home } }), home };
  })();
  return noApprover;
}
afterAll(async () => {
  if (!noApprover) return;
  const { daemon, home } = await noApprover;
  await daemon.stop();
  daemon.cleanup();
  rmSync(home, { recursive: true, force: true });
}, DAEMON_TEST_MS);

describe('with HTTP approvals (GOONDAN_APPROVALS=http)', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon(BUNDLE, { env: { GOONDAN_APPROVALS: 'http' } });
  }, DAEMON_TEST_MS);
  afterAll(async () => {
    await daemon.stop();
    daemon.cleanup();
  }, DAEMON_TEST_MS);

  test('deny: an E_TOOL_DENIED result naming the rule reaches the model; nothing runs', async () => {
    const { body } = await daemon.send({ input: 'delete everything', instanceKey: 'deny' });
    expect(String(body.output)).toContain('E_TOOL_DENIED');
    expect(String(body.output)).toContain('swarm rule #1 (deny bash__exec command="rm *"): nothing gets deleted here');
  });

  test('allow rules and read-only tools run without asking', async () => {
    expect((await daemon.send({ input: 'git please', instanceKey: 'allow' })).body.output).toBe('git: 0');
    expect((await daemon.send({ input: 'list files', instanceKey: 'allow' })).body.output).toBe('listed');
    const approvals = (await (await daemon.api('/v1/approvals')).json()) as { approvals: unknown[] };
    expect(approvals.approvals).toEqual([]);
  });

  test('ask: the call waits in GET /v1/approvals until POST approves it, then runs', async () => {
    const pending = daemon.send({ input: 'write notes', instanceKey: 'ask-1' });
    const approval = await nextApproval(daemon, 'ask-1');
    expect(approval).toMatchObject({ agent: 'coder', instanceKey: 'ask-1', toolName: 'file-system__write', args: { path: 'notes.md' } });
    // issue 17: what the person reads — the export's summary, display name and icon, and the tool's own diff preview.
    expect(approval).toMatchObject({ summary: 'Write notes.md', displayName: 'Write file', icon: '📝' });
    expect(String(approval.preview)).toContain('(new file)\n--- notes.md\n+++ notes.md\n@@ -1,0 +1,1 @@\n+remember the milk');
    expect(String(approval.reason)).toContain('notes need a human look');
    expect(existsSync(join(workdir(daemon, 'ask-1'), 'notes.md'))).toBe(false);
    const response = await decide(daemon, approval.id, { decision: 'approve' });
    expect(response.status).toBe(200);
    expect((await pending).body.output).toBe('write: notes.md');
    expect(readFileSync(join(workdir(daemon, 'ask-1'), 'notes.md'), 'utf8')).toBe('remember the milk');
    // Deciding twice is a 404: it is no longer pending.
    expect((await decide(daemon, approval.id, { decision: 'approve' })).status).toBe(404);
  });

  test('ask: a denial comes back to the model as E_TOOL_DENIED with the approver', async () => {
    const pending = daemon.send({ input: 'write notes', instanceKey: 'ask-2' });
    const approval = await nextApproval(daemon, 'ask-2');
    await decide(daemon, approval.id, { decision: 'deny', reason: 'not today' });
    const output = String((await pending).body.output);
    expect(output).toContain('E_TOOL_DENIED');
    expect(output).toContain('not approved (http)');
    expect(output).toContain('not today');
    expect(existsSync(join(workdir(daemon, 'ask-2'), 'notes.md'))).toBe(false);
  });

  test('"always for this session" approves that call for the rest of the session, not every call of the tool', async () => {
    const first = daemon.send({ input: 'write notes', instanceKey: 'ask-3' });
    const approval = await nextApproval(daemon, 'ask-3');
    await decide(daemon, approval.id, { decision: 'approve', scope: 'session' });
    expect((await first).body.output).toBe('write: notes.md');
    const second = await daemon.send({ input: 'write notes', instanceKey: 'ask-3' });
    expect(second.body.output).toBe('write: notes.md');
    // Another call of the same tool under the same rule is asked again.
    const other = daemon.send({ input: 'write todo', instanceKey: 'ask-3' });
    const asked = await nextApproval(daemon, 'ask-3');
    expect(asked.args).toMatchObject({ path: 'todo.md' });
    await decide(daemon, asked.id, { decision: 'deny' });
    expect(String((await other).body.output)).toContain('E_TOOL_DENIED');
  });

  test('a bad decision body is 400 and names the field', async () => {
    const response = await decide(daemon, 'appr_x', { decision: 'maybe' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('/decision');
  });
});

describe('without an approver', () => {
  test('a non-interactive run denies ask at once and says why', async () => {
    const { daemon } = await daemonWithoutApprover();
    const { body } = await daemon.send({ input: 'say hi', instanceKey: 'nobody' });
    const output = String(body.output);
    expect(output).toContain('E_TOOL_DENIED');
    expect(output).toContain('no-approver');
    expect(output).toContain('GOONDAN_APPROVALS=http');
  });

  test('an unanswered approval times out to deny', async () => {
    const bundle = mkdtempSync(join(tmpdir(), 'goondan-policy-'));
    writeFileSync(join(bundle, 'goondan.yaml'), readFileSync(join(BUNDLE, 'goondan.yaml'), 'utf8').replace('askTimeoutSeconds: 120', 'askTimeoutSeconds: 1'));
    const daemon = await startDaemon(bundle, { env: { GOONDAN_APPROVALS: 'http' } });
    try {
      const started = Date.now();
      const { body } = await daemon.send({ input: 'say hi', instanceKey: 'late' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(String(body.output)).toContain('not approved (timeout)');
      expect(((await (await daemon.api('/v1/approvals')).json()) as { approvals: unknown[] }).approvals).toEqual([]);
    } finally {
      await daemon.stop();
      daemon.cleanup();
      rmSync(bundle, { recursive: true, force: true });
    }
  });
});

describe('shell lines are judged by what they would run (no approver)', () => {
  let daemon: Daemon;
  let home: string;
  beforeAll(async () => {
    ({ daemon, home } = await daemonWithoutApprover());
  }, DAEMON_TEST_MS);

  /** A file in the instance's workspace that a delete would remove. */
  function keepsake(key: string): string {
    const dir = workdir(daemon, key);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'keep.txt'), 'still here');
    return join(dir, 'keep.txt');
  }

  test('rm inside sh -c, spelled /bin/rm, is denied by the rm * rule, which the message names', async () => {
    const file = keepsake('sneaky');
    const output = String((await daemon.send({ input: 'sneaky delete', instanceKey: 'sneaky' })).body.output);
    expect(output).toContain('E_TOOL_DENIED');
    expect(output).toContain(`'rm -rf ./*' (inside sh -c) matches swarm rule #1 (deny bash__exec command="rm *"): nothing gets deleted here`);
    expect(readFileSync(file, 'utf8')).toBe('still here');
  });

  test('a variable in command position cannot be judged: it needs approval, and with nobody to ask it is denied', async () => {
    const file = keepsake('variable');
    const output = String((await daemon.send({ input: 'variable delete', instanceKey: 'variable' })).body.output);
    expect(output).toContain('E_TOOL_DENIED');
    expect(output).toContain(`'$x -rf ./*' cannot be judged before it runs`);
    expect(output).toContain('no approver');
    expect(readFileSync(file, 'utf8')).toBe('still here');
  });

  test('allow: git * does not allow a git line that writes into the home directory', async () => {
    const output = String((await daemon.send({ input: 'git to home', instanceKey: 'home' })).body.output);
    expect(output).toContain('E_TOOL_DENIED');
    expect(output).toContain('writing ~/.bashrc-goondan-test');
    expect(output).toContain('lands outside the workspace');
    expect(existsSync(join(home, '.bashrc-goondan-test'))).toBe(false);
  });
});

describe('interactive terminal', () => {
  test('the cli connector asks y/n at the prompt and the answer decides', async () => {
    const stateRoot = tempStateRoot();
    const terminal = await startTerminalRun(BUNDLE, stateRoot);
    terminal.type('write notes\n');
    await terminalShows(terminal, 'Allow? [y]es / [n]o / [a]lways this session', 'the approval prompt');
    const shown = terminal.output().replaceAll('\r\n', '\n');
    expect(shown).toContain('coder wants to: Write notes.md\n  📝 Write file (file-system__write)\n  │ (new file)');
    expect(shown).toContain('  │ +remember the milk\n');
    terminal.type('y\n');
    await terminalShows(terminal, 'write: notes.md', 'the reply');
    terminal.type('\u0004');
    expect(await terminal.exited()).toBe(0);
    expect(readFileSync(join(workdir({ stateRoot }, 'cli'), 'notes.md'), 'utf8')).toBe('remember the milk');
  });
});
