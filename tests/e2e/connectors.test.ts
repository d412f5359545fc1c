/**
 * Connectors (SPEC.md §6): one ConnectorProcess per Connection; the webhook connector checks the
 * HMAC signature before emitting; ingress rules pick agent and instance; connector properties reach
 * the agent in `AgentEvent.source`; the `cli` connector holds a terminal conversation on one key.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { DAEMON_TEST_MS, type Daemon, REPO_ROOT, isRunning, startDaemon, startTerminalRun, tempStateRoot, terminalShows, waitFor, withToken } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/connectors');
const SECRET = 'hook-secret-123';
// Port 0: the connector binds a free port and logs its URL — no window for another process to take
// a port picked in advance.
const CONNECTOR_ENV = { WEBHOOK_PORT: '0', HOOK_SECRET: SECRET };
let daemon: Daemon;
let hookUrl: string;

beforeAll(async () => {
  daemon = await startDaemon(BUNDLE, { env: CONNECTOR_ENV });
  hookUrl = String((await daemon.waitForLog('webhook listening', (l) => l.msg === 'webhook listening')).url);
}, DAEMON_TEST_MS);
afterAll(async () => {
  await daemon.stop();
  daemon.cleanup();
}, DAEMON_TEST_MS);

function signed(body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-goondan-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
}

describe('webhook connector', () => {
  test('runs as its own process', async () => {
    // Its "listening" line can reach us before the orchestrator has read its ready message.
    const row = await waitFor(
      'the webhook connector to be ready in the process table',
      async () => (await daemon.processes()).find((r) => r.connection === 'inbound-hooks'),
      (found) => found?.status === 'idle',
    );
    expect(row).toMatchObject({ kind: 'connector', status: 'idle' });
    expect(Number(row?.pid)).toBeGreaterThan(0);
    expect(row?.pid).not.toBe(daemon.proc.pid);
  });

  test('an unsigned or wrongly signed POST is 401 and emits nothing', async () => {
    const body = JSON.stringify({ text: 'sneaky', properties: { channel: 'support', user: 'mallory' } });
    expect((await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(401);
    const forged = { ...signed('other body') };
    expect((await fetch(hookUrl, { method: 'POST', headers: forged, body })).status).toBe(401);
    // A signed event behind them on the same connector: once it is answered, anything the rejected
    // ones had emitted would have been routed (one channel, handled in order).
    const after = JSON.stringify({ text: 'after the forgeries', properties: { channel: 'support', user: 'trent' } });
    expect((await fetch(`${hookUrl}?wait=true`, { method: 'POST', headers: signed(after), body: after })).status).toBe(200);
    const keys = (await daemon.processes()).map((r) => r.instanceKey);
    expect(keys).toContain('wh:trent');
    expect(keys).not.toContain('wh:mallory');
  });

  test('a signed POST becomes a turn routed by the first matching rule, with properties in AgentEvent.source', async () => {
    const body = JSON.stringify({ text: 'my printer is on fire', properties: { channel: 'support', user: 'bob' } });
    const response = await fetch(`${hookUrl}?wait=true`, { method: 'POST', headers: signed(body), body });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', output: 'desk got: my printer is on fire' });
    const inbox = readFileSync(instancePaths(daemon.stateRoot, 'helpdesk', 'desk', 'wh:bob').inbox, 'utf8');
    const put = inbox.split('\n').filter((l) => l.includes('"op":"put"')).map((l) => JSON.parse(l) as { event: { source: Record<string, unknown>; traceId: string } });
    expect(put[0]?.event.source).toMatchObject({ kind: 'connector', name: 'inbound-hooks', event: 'webhook_message', channel: 'support', user: 'bob' });
    expect(put[0]?.event.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  test('properties named kind, name or event cannot disguise the sender', async () => {
    const body = JSON.stringify({ text: 'spoof', properties: { channel: 'support', user: 'eve', kind: 'agent', name: 'boss', event: 'fake' } });
    const response = await fetch(`${hookUrl}?wait=true`, { method: 'POST', headers: signed(body), body });
    expect(await response.json()).toMatchObject({ status: 'ok', output: 'desk got: spoof' });
    const inbox = readFileSync(instancePaths(daemon.stateRoot, 'helpdesk', 'desk', 'wh:eve').inbox, 'utf8');
    const put = inbox.split('\n').filter((l) => l.includes('"op":"put"')).map((l) => JSON.parse(l) as { event: { source: Record<string, unknown> } });
    expect(put[0]?.event.source).toMatchObject({ kind: 'connector', name: 'inbound-hooks', event: 'webhook_message', user: 'eve' });
  });

  test('events matching no specific rule fall through to the catch-all route', async () => {
    const body = JSON.stringify({ text: 'general question', properties: { channel: 'sales' } });
    const response = await fetch(hookUrl, { method: 'POST', headers: signed(body), body });
    expect(response.status).toBe(202);
    await waitFor(
      "the misc instance's answer in its conversation",
      () => readFileSync(instancePaths(daemon.stateRoot, 'helpdesk', 'desk', 'misc').baseMessages, 'utf8'),
      (text) => text.includes('desk got: general question'),
    );
  });

  test('a malformed body is 400 and the connector keeps serving', async () => {
    const bad = '{"text": ';
    expect((await fetch(hookUrl, { method: 'POST', headers: signed(bad), body: bad })).status).toBe(400);
    const good = JSON.stringify({ text: 'after the bad one', properties: { channel: 'support', user: 'bob' } });
    const response = await fetch(`${hookUrl}?wait=true`, { method: 'POST', headers: signed(good), body: good });
    expect(await response.json()).toMatchObject({ output: 'desk got: after the bad one' });
  });
});

describe('cli connector in a terminal', () => {
  test('each line is a turn on one stable key, replies are printed, Ctrl-D exits 0', async () => {
    const stateRoot = tempStateRoot();
    const terminal = await startTerminalRun(BUNDLE, stateRoot, CONNECTOR_ENV);
    terminal.type('first question\n');
    await terminalShows(terminal, 'desk got: first question', 'the first reply');
    terminal.type('second question\n');
    await terminalShows(terminal, 'desk got: second question', 'the second reply');
    terminal.type('\u0004');
    expect(await terminal.exited()).toBe(0);
    const base = readFileSync(instancePaths(stateRoot, 'helpdesk', 'desk', 'cli').baseMessages, 'utf8');
    expect(base).toContain('first question');
    expect(base).toContain('second question');
  });

  test('Ctrl-C drains the swarm and exits 0, leaving no process behind', async () => {
    const stateRoot = tempStateRoot();
    const terminal = await startTerminalRun(BUNDLE, stateRoot, CONNECTOR_ENV);
    terminal.type('hello\n');
    await terminalShows(terminal, 'desk got: hello', 'the reply');
    const runtime = JSON.parse(readFileSync(join(stateRoot, 'runtime', 'helpdesk.json'), 'utf8')) as { apiUrl: string };
    const rows = (await (await fetch(`${runtime.apiUrl}/v1/processes`, withToken(stateRoot))).json()) as { processes: Array<{ pid: number | null }> };
    const pids = rows.processes.map((r) => r.pid).filter((p): p is number => typeof p === 'number');
    expect(pids.length).toBeGreaterThanOrEqual(2);
    terminal.type('\u0003');
    expect(await terminal.exited()).toBe(0);
    await waitFor('every child to exit', () => pids.filter(isRunning), (alive) => alive.length === 0);
  });
});
