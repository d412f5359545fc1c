/**
 * The HTTP endpoints of the built-in webhook-style connectors, over real HTTP: body size bounds
 * (a chunked upload is not buffered whole), which secrets and settings they need, which
 * properties a request body may set, and replays of signed requests.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import github from '../../bundles/base/connectors/github/index.ts';
import webhook from '../../bundles/base/connectors/webhook/index.ts';
import { type RunningConnector, postEndlessChunked, startConnector, started } from './connector-http-harness.ts';

const running: RunningConnector[] = [];
afterEach(async () => {
  for (const connector of running.splice(0)) await connector.stop();
});
async function run(...args: Parameters<typeof startConnector>): Promise<RunningConnector> {
  const connector = started(await startConnector(...args));
  running.push(connector);
  return connector;
}

describe('request bodies are bounded while they are read', () => {
  test('webhook: a chunked upload past 1 MB is answered 413 without waiting for its end', async () => {
    const hook = await run(webhook, { port: '0', path: '/in' }, { WEBHOOK_SECRET: 's' });
    expect(await postEndlessChunked(hook.url, 2_000_000, 5_000)).toBe(413);
    expect(hook.events).toEqual([]);
  });

  test('webhook-style connectors (github): the same for a chunked upload', async () => {
    const hooks = await run(github, { port: '0', verify: 'false' });
    expect(await postEndlessChunked(hooks.url, 2_000_000, 5_000)).toBe(413);
    expect(hooks.events).toEqual([]);
  });
});

describe('webhook: requests must be signed unless verify: false says otherwise', () => {
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

  test('without a secret the connector refuses to start, naming WEBHOOK_SECRET and verify: false', async () => {
    const result = await startConnector(webhook, { port: '0' });
    const error = 'error' in result ? result.error : { code: 'started', message: '' };
    expect(error.code).toBe('E_CONNECTOR_CONFIG');
    expect(error.message).toContain('WEBHOOK_SECRET');
    expect(error.message).toContain('verify: false');
  });

  test('a secret in config (not only in secrets) is used: an unsigned request is 401, a signed one is accepted', async () => {
    const hook = await run(webhook, { port: '0', WEBHOOK_SECRET: 'conf-secret' });
    const body = JSON.stringify({ text: 'hi', instanceKey: 'victim' });
    const unsigned = await post(hook.url, body);
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe('E_WEBHOOK_SIGNATURE');
    expect((await post(hook.url, body, { 'x-goondan-signature': sign('conf-secret', body) })).status).toBe(202);
    expect(hook.events.map((event) => event.instanceKey)).toEqual(['victim']);
  });

  test('verify: false without a secret starts, warns at start, and accepts unsigned requests', async () => {
    const hook = await run(webhook, { port: '0', verify: 'false' });
    expect(hook.logs.some((line) => line.level === 'warn' && line.msg.includes('UNSIGNED'))).toBe(true);
    expect((await post(hook.url, JSON.stringify({ text: 'hi' }))).status).toBe(202);
    expect(hook.events).toHaveLength(1);
  });
});

describe('webhook: properties the connector sets cannot be set by the body', () => {
  test('a body with properties.path gets the real path (a route rule for another path must not match)', async () => {
    const hook = await run(webhook, { port: '0', path: '/public' }, { WEBHOOK_SECRET: 's' });
    const body = JSON.stringify({ text: 'hi', properties: { path: '/internal', user: 'eve' } });
    const signature = `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`;
    const response = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goondan-signature': signature }, body });
    expect(response.status).toBe(202);
    expect(hook.events[0]?.properties).toEqual({ path: '/public', user: 'eve' });
  });
});
