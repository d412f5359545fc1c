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
import { type Daemon, REPO_ROOT, pidAlive, startDaemon, startTerminalRun, tempStateRoot, waitUntil, withToken } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/connectors');
const SECRET = 'hook-secret-123';
let daemon: Daemon;
let hookUrl: string;

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const port = server.port ?? 0;
  server.stop(true);
  return port;
}

beforeAll(async () => {
  const port = freePort();
  hookUrl = `http://127.0.0.1:${port}/hooks`;
  daemon = await startDaemon(BUNDLE, { env: { WEBHOOK_PORT: String(port), HOOK_SECRET: SECRET } });
  await daemon.waitForLog((l) => l.msg === 'webhook listening');
}, 60_000);
afterAll(async () => {
  await daemon.stop();
  daemon.cleanup();
}, 60_000);

function signed(body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-goondan-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
}

describe('webhook connector', () => {
  test('runs as its own process', async () => {
    // The connector logs "listening" just before the host reports it started: wait for the status.
    await waitUntil(async () => (await daemon.processes()).some((r) => r.connection === 'inbound-hooks' && r.status === 'idle'), 15_000, 'the connector to be idle');
    const rows = await daemon.processes();
    expect(rows.find((r) => r.connection === 'inbound-hooks')).toMatchObject({ kind: 'connector', status: 'idle' });
  });

  test('an unsigned or wrongly signed POST is 401 and emits nothing', async () => {
    const body = JSON.stringify({ text: 'sneaky', properties: { channel: 'support', user: 'mallory' } });
    expect((await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(401);
    const forged = { ...signed('other body') };
    expect((await fetch(hookUrl, { method: 'POST', headers: forged, body })).status).toBe(401);
    await Bun.sleep(200);
    expect((await daemon.processes()).some((r) => r.instanceKey === 'wh:mallory')).toBe(false);
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
    await waitUntil(() => {
      try {
        return readFileSync(instancePaths(daemon.stateRoot, 'helpdesk', 'desk', 'misc').baseMessages, 'utf8').includes('desk got: general question');
      } catch {
        return false;
      }
    }, 15_000, 'the misc instance to answer');
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
    const terminal = await startTerminalRun(BUNDLE, stateRoot, { WEBHOOK_PORT: String(freePort()), HOOK_SECRET: SECRET });
    terminal.type('first question\n');
    await waitUntil(() => terminal.output().includes('desk got: first question'), 20_000, 'the first reply');
    terminal.type('second question\n');
    await waitUntil(() => terminal.output().includes('desk got: second question'), 20_000, 'the second reply');
    terminal.type('\u0004');
    expect(await terminal.proc.exited).toBe(0);
    const base = readFileSync(instancePaths(stateRoot, 'helpdesk', 'desk', 'cli').baseMessages, 'utf8');
    expect(base).toContain('first question');
    expect(base).toContain('second question');
  });

  test('Ctrl-C drains the swarm and exits 0, leaving no process behind', async () => {
    const stateRoot = tempStateRoot();
    const terminal = await startTerminalRun(BUNDLE, stateRoot, { WEBHOOK_PORT: String(freePort()), HOOK_SECRET: SECRET });
    terminal.type('hello\n');
    await waitUntil(() => terminal.output().includes('desk got: hello'), 20_000, 'the reply');
    const runtime = JSON.parse(readFileSync(join(stateRoot, 'runtime', 'helpdesk.json'), 'utf8')) as { apiUrl: string };
    const rows = (await (await fetch(`${runtime.apiUrl}/v1/processes`, withToken(stateRoot))).json()) as { processes: Array<{ pid: number | null }> };
    const pids = rows.processes.map((r) => r.pid).filter((p): p is number => typeof p === 'number');
    expect(pids.length).toBeGreaterThanOrEqual(2);
    terminal.type('\u0003');
    expect(await terminal.proc.exited).toBe(0);
    await waitUntil(() => pids.every((pid) => !pidAlive(pid)), 10_000, 'every child to exit');
  });
});
