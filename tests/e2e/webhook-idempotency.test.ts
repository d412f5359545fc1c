/**
 * Issue 10, connector-supplied idempotency: the webhook connector passes the provider's delivery
 * id (Idempotency-Key, webhook-id, X-GitHub-Delivery, X-Delivery-Id) on, and a redelivery under
 * the same id runs no second turn — with `wait` it gets the original turn's reply. A Standard
 * Webhooks request signs its id and time: replayed after five minutes it is refused, replayed
 * before under the same webhook-id (whatever unsigned id headers it carries) it runs no turn.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { DAEMON_TEST_MS, type Daemon, REPO_ROOT, startDaemon } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/connectors');
const SECRET = 'hook-secret-123';
let daemon: Daemon;
let hookUrl: string;

beforeAll(async () => {
  daemon = await startDaemon(BUNDLE, { env: { WEBHOOK_PORT: '0', HOOK_SECRET: SECRET } });
  hookUrl = String((await daemon.waitForLog('webhook listening', (l) => l.msg === 'webhook listening')).url);
}, DAEMON_TEST_MS);
afterAll(async () => {
  await daemon.stop();
  daemon.cleanup();
}, DAEMON_TEST_MS);

async function deliver(text: string, user: string, headers: Record<string, string>, wait = true): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({ text, properties: { channel: 'support', user } });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(`${hookUrl}${wait ? '?wait=true' : ''}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goondan-signature': signature, ...headers }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** How many user messages of `user`'s conversation say `text`. */
function inputsSaying(user: string, text: string): number {
  const base = readFileSync(instancePaths(daemon.stateRoot, 'helpdesk', 'desk', `wh:${user}`).baseMessages, 'utf8');
  return base.split('\n').filter((line) => line.includes('"role":"user"') && line.includes(text)).length;
}

describe('webhook delivery ids', () => {
  test('the same X-GitHub-Delivery twice: one turn, the original reply both times (also without wait)', async () => {
    const first = await deliver('first delivery', 'dup', { 'x-github-delivery': 'gh-1' });
    expect(first.status).toBe(200);
    const again = await deliver('first delivery', 'dup', { 'x-github-delivery': 'gh-1' });
    expect(again).toEqual(first);
    expect((await deliver('first delivery', 'dup', { 'x-github-delivery': 'gh-1' }, false)).status).toBe(202);
    // One connector, one channel: once a later delivery is answered, the 202 one was routed (or dropped).
    expect((await deliver('later delivery', 'dup', { 'webhook-id': 'std-1' })).status).toBe(200);
    expect(inputsSaying('dup', 'first delivery')).toBe(1);
  });

  test('a delivery id as long as the header allows (256 characters) still counts: one turn, the same reply', async () => {
    const id = `long-${'x'.repeat(251)}`;
    const first = await deliver('long id delivery', 'long', { 'x-delivery-id': id });
    expect(first.status).toBe(200);
    expect(await deliver('long id delivery', 'long', { 'x-delivery-id': id })).toEqual(first);
    expect(inputsSaying('long', 'long id delivery')).toBe(1);
  });

  test('without a delivery id every POST is its own turn', async () => {
    await deliver('no id', 'plain', {});
    await deliver('no id', 'plain', {});
    expect(inputsSaying('plain', 'no id')).toBe(2);
  });
});

describe('Standard Webhooks requests, replayed', () => {
  const now = () => Math.floor(Date.now() / 1000);
  async function deliverStandard(text: string, user: string, id: string, timestamp: number, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const body = JSON.stringify({ text, properties: { channel: 'support', user } });
    const signature = `v1,${createHmac('sha256', SECRET).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    const standard = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    const response = await fetch(`${hookUrl}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json', ...standard, ...headers }, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  test('a signed request runs a turn; replayed inside the window under the same webhook-id it runs none and gets the original reply', async () => {
    const sentAt = now();
    const first = await deliverStandard('standard delivery', 'std', 'msg_e2e_1', sentAt);
    expect(first).toMatchObject({ status: 200, body: { status: 'ok', output: 'desk got: standard delivery' } });
    // A replayer can change the unsigned headers, not the signed id.
    expect(await deliverStandard('standard delivery', 'std', 'msg_e2e_1', sentAt, { 'idempotency-key': 'replay-1' })).toEqual(first);
    expect(await deliverStandard('standard delivery', 'std', 'msg_e2e_1', sentAt, { 'x-github-delivery': 'replay-2' })).toEqual(first);
    expect(inputsSaying('std', 'standard delivery')).toBe(1);
  });

  test('a correctly signed request ten minutes old is 401 E_WEBHOOK_TIMESTAMP and runs no turn', async () => {
    const stale = await deliverStandard('stale delivery', 'std-old', 'msg_e2e_old', now() - 600);
    expect(stale.status).toBe(401);
    expect(stale.body).toMatchObject({ error: { code: 'E_WEBHOOK_TIMESTAMP' } });
    // One connector, one channel: once a later delivery is answered, the stale one would have been routed.
    expect((await deliverStandard('fresh delivery', 'std-old', 'msg_e2e_fresh', now())).status).toBe(200);
    expect(inputsSaying('std-old', 'stale delivery')).toBe(0);
    expect(inputsSaying('std-old', 'fresh delivery')).toBe(1);
  });
});
