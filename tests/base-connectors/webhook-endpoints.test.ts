/**
 * The HTTP endpoints of the built-in webhook-style connectors, over real HTTP: body size bounds
 * (a chunked upload is not buffered whole), which secrets and settings they need, which
 * properties a request body may set, and replays of signed requests.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import discord from '../../bundles/base/connectors/discord/index.ts';
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

describe('discord: a signed interaction cannot be replayed', () => {
  const keys = generateKeyPairSync('ed25519');
  const publicKey = Buffer.from(keys.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex');
  const interaction = (id: string) => JSON.stringify({
    id,
    application_id: 'APP1',
    type: 2,
    token: `itoken-${id}`,
    channel_id: 'CH1',
    member: { user: { id: 'U1', username: 'dee' } },
    data: { id: 'CMD1', name: 'ask', type: 1, options: [{ name: 'q', type: 3, value: 'hello' }] },
  });
  const post = (url: string, body: string, timestamp: number) => {
    const stamp = String(timestamp);
    const signature = sign(null, Buffer.from(stamp + body), keys.privateKey).toString('hex');
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature-timestamp': stamp, 'x-signature-ed25519': signature }, body });
  };
  const now = () => Math.floor(Date.now() / 1000);

  test('a correctly signed interaction from long ago is 401 and emits nothing', async () => {
    const bot = await run(discord, { port: '0', publicKey, replies: 'false' });
    const old = await post(bot.url, interaction('1001'), 1_690_000_000);
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: { message: string } }).error.message).toContain('five-minute');
    expect((await post(bot.url, interaction('1002'), now())).status).toBe(200);
    await bot.stop();
    running.splice(0);
    expect(bot.events.map((event) => event.properties.interaction_id)).toEqual(['1002']);
  });

  test('the same fresh interaction posted three times is one turn; the repeats are 409', async () => {
    const bot = await run(discord, { port: '0', publicKey, replies: 'false' });
    const body = interaction('2001');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(bot.url, body, now())).status);
    expect(statuses).toEqual([200, 409, 409]);
    await bot.stop();
    running.splice(0);
    expect(bot.events).toHaveLength(1);
    expect(bot.events[0]?.idempotencyKey).toBe('discord-interaction:2001');
  });
});

describe('github: the unsigned headers do not decide what a signed body is', () => {
  const secret = 'gh-secret';
  const commentBody = JSON.stringify({
    action: 'created',
    repository: { full_name: 'acme/widgets' },
    sender: { login: 'carol' },
    issue: { number: 7, title: 'Issue 7', user: { login: 'dave' } },
    comment: { id: 5007, body: 'please look', user: { login: 'carol' } },
  });
  const deliver = (url: string, event: string, deliveryId: string, body = commentBody) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': deliveryId,
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
      body,
    });

  test('a captured delivery posted again under new delivery ids is one turn', async () => {
    const hooks = await run(github, { port: '0', replies: 'false' }, { WEBHOOK_SECRET: secret });
    const answers = [];
    for (const id of ['d-1', 'd-2', 'd-3']) answers.push((await (await deliver(hooks.url, 'issue_comment', id)).json()) as Record<string, unknown>);
    expect(answers).toEqual([{ ok: true }, { ok: true, duplicate: true }, { ok: true, duplicate: true }]);
    await hooks.stop();
    running.splice(0);
    expect(hooks.events).toHaveLength(1);
    expect(hooks.events[0]?.idempotencyKey).toBe('issue_comment.created:5007');
  });

  test('an X-GitHub-Event that does not match the body is 400 and emits nothing', async () => {
    const hooks = await run(github, { port: '0', replies: 'false' }, { WEBHOOK_SECRET: secret });
    const opened = JSON.stringify({ action: 'opened', repository: { full_name: 'acme/widgets' }, issue: { number: 8, title: 't', user: { login: 'erin' } }, comment: { id: 1, body: 'x' } });
    const response = await deliver(hooks.url, 'issues', 'd-9', opened);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('does not match the signed body');
    await hooks.stop();
    running.splice(0);
    expect(hooks.events).toEqual([]);
  });
});

describe('webhook: a delivery id counts only together with the signed body', () => {
  test('the same Idempotency-Key with another body is another delivery; with the same body the same one', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: 's' });
    const send = (text: string) => {
      const body = JSON.stringify({ text, instanceKey: 'k' });
      const signature = `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`;
      return fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goondan-signature': signature, 'idempotency-key': 'delivery-1' }, body });
    };
    for (const text of ['real message', 'real message', 'captured, replayed under the real id']) expect((await send(text)).status).toBe(202);
    const [first, redelivery, other] = hook.events.map((event) => event.idempotencyKey);
    expect(first).toStartWith('delivery-1:');
    expect(redelivery).toBe(first);
    expect(other).not.toBe(first);
  });
});

describe('webhook: what the connector passes on stays within what the daemon accepts', () => {
  const signed = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goondan-signature': `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`, ...headers }, body });

  test('a delivery id too long to sit beside the body’s digest stands in by its own digest: at most 256 characters, one key per id and body', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: 's' });
    const body = JSON.stringify({ text: 'hi', instanceKey: 'k' });
    const longId = `d-${'x'.repeat(240)}`;
    for (const id of [longId, longId, `${longId}y`]) expect((await signed(hook.url, body, { 'x-delivery-id': id })).status).toBe(202);
    const [first = '', again, other] = hook.events.map((event) => event.idempotencyKey ?? '');
    expect(first.length).toBeLessThanOrEqual(256);
    expect(first).toStartWith('id-sha256-');
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  test('a body’s instanceKey the daemon would refuse is a 400 naming it, and nothing is passed on', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: 's' });
    for (const instanceKey of ['k'.repeat(300), 'bad\u0000key']) {
      const response = await signed(hook.url, JSON.stringify({ text: 'hi', instanceKey }));
      const error = ((await response.json()) as { error: { code: string; message: string } }).error;
      expect({ status: response.status, code: error.code }).toEqual({ status: 400, code: 'E_WEBHOOK_BAD_BODY' });
      expect(error.message).toStartWith('/instanceKey: the instance key');
    }
    expect(hook.events).toEqual([]);
  });

  test('an event the daemon does not take is a JSON 500 the sender can read, with and without wait', async () => {
    const hook = started(await startConnector(webhook, { port: '0' }, { WEBHOOK_SECRET: 's' }, true));
    running.push(hook);
    for (const wait of ['', '?wait=true']) {
      const response = await signed(`${hook.url}${wait}`, JSON.stringify({ text: 'hi' }));
      expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status: 500, type: 'application/json' });
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_WEBHOOK_INTERNAL');
    }
  });
});

describe('webhook: Standard Webhooks signatures (signed id and timestamp)', () => {
  const secret = 'whsec_c3RhbmRhcmQtd2ViaG9va3Mta2V5LWJ5dGVz';
  const keyBytes = Buffer.from('c3RhbmRhcmQtd2ViaG9va3Mta2V5LWJ5dGVz', 'base64');
  const now = () => Math.floor(Date.now() / 1000);
  const standardHeaders = (key: string | Uint8Array, id: string, timestamp: number, body: string) => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
  });
  const post = (url: string, body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const refusal = async (response: Response) => ({ status: response.status, ...((await response.json()) as { error: { code: string; message: string } }).error });
  const body = JSON.stringify({ text: 'hi', instanceKey: 'std' });

  test('a request signed with the whsec_ key bytes is accepted, keyed by its signed webhook-id; signed with the whsec_ string itself it is 401', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: secret });
    expect((await post(hook.url, body, standardHeaders(keyBytes, 'msg_1', now(), body))).status).toBe(202);
    expect(await refusal(await post(hook.url, body, standardHeaders(secret, 'msg_2', now(), body)))).toMatchObject({ status: 401, code: 'E_WEBHOOK_SIGNATURE' });
    expect(hook.events.map((event) => event.instanceKey)).toEqual(['std']);
    expect(hook.events[0]?.idempotencyKey).toStartWith('msg_1:sha256-');
  });

  test('a secret without whsec_ signs with its UTF-8 bytes', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: 'plain-secret' });
    expect((await post(hook.url, body, standardHeaders('plain-secret', 'msg_1', now(), body))).status).toBe(202);
    expect(hook.events).toHaveLength(1);
  });

  test('a correctly signed request ten minutes old, or ten minutes ahead, is 401 E_WEBHOOK_TIMESTAMP naming the window', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: secret });
    for (const timestamp of [now() - 600, now() + 600]) {
      const answer = await refusal(await post(hook.url, body, standardHeaders(keyBytes, 'msg_old', timestamp, body)));
      expect(answer).toMatchObject({ status: 401, code: 'E_WEBHOOK_TIMESTAMP' });
      expect(answer.message).toContain('5 minutes');
    }
    expect(hook.events).toEqual([]);
  });

  test('a captured request with its id or timestamp changed is 401 E_WEBHOOK_SIGNATURE', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: secret });
    const captured = standardHeaders(keyBytes, 'msg_1', now() - 240, body);
    expect((await post(hook.url, body, captured)).status).toBe(202);
    for (const tampered of [{ ...captured, 'webhook-id': 'msg_2' }, { ...captured, 'webhook-timestamp': String(now()) }]) {
      expect(await refusal(await post(hook.url, body, tampered))).toMatchObject({ status: 401, code: 'E_WEBHOOK_SIGNATURE' });
    }
    expect(hook.events).toHaveLength(1);
  });

  test('a wrong Standard Webhooks signature is 401 even with a valid legacy signature beside it', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: secret });
    const legacy = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const wrong = { ...standardHeaders('another key', 'msg_1', now(), body), 'x-goondan-signature': legacy };
    expect((await post(hook.url, body, wrong)).status).toBe(401);
    expect(hook.events).toEqual([]);
  });

  test('the signed webhook-id wins over an unsigned Idempotency-Key: a replay under a new key keeps the first key', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: secret });
    const captured = standardHeaders(keyBytes, 'msg_1', now(), body);
    for (const idempotencyKey of ['first', 'replayed']) expect((await post(hook.url, body, { ...captured, 'idempotency-key': idempotencyKey })).status).toBe(202);
    const [first, replay] = hook.events.map((event) => event.idempotencyKey);
    expect(first).toStartWith('msg_1:');
    expect(replay).toBe(first);
  });
});

describe('webhook: the signature setting chooses the schemes accepted', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ text: 'hi' });
  const legacy = { 'x-goondan-signature': `sha256=${createHmac('sha256', 's').update(body).digest('hex')}` };
  const standard = (timestamp = now()) => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${createHmac('sha256', 's').update(`msg_1.${timestamp}.${body}`).digest('base64')}` });
  const post = (url: string, headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  test('any (the default) accepts either scheme; hmac-sha256 only the legacy one', async () => {
    const hook = await run(webhook, { port: '0' }, { WEBHOOK_SECRET: 's' });
    expect((await post(hook.url, legacy)).status).toBe(202);
    expect((await post(hook.url, standard())).status).toBe(202);
    expect(hook.events).toHaveLength(2);
    const legacyOnly = await run(webhook, { port: '0', signature: 'hmac-sha256' }, { WEBHOOK_SECRET: 's' });
    expect((await post(legacyOnly.url, standard())).status).toBe(401);
    expect((await post(legacyOnly.url, legacy)).status).toBe(202);
    expect(legacyOnly.events).toHaveLength(1);
  });

  test('standard-webhooks refuses a legacy-signed request with 401, saying which headers to send', async () => {
    const hook = await run(webhook, { port: '0', signature: 'standard-webhooks' }, { WEBHOOK_SECRET: 's' });
    const refused = await post(hook.url, legacy);
    expect(refused.status).toBe(401);
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('E_WEBHOOK_SIGNATURE');
    expect(error.message).toContain('webhook-timestamp');
    expect((await post(hook.url, standard())).status).toBe(202);
    expect(hook.events).toHaveLength(1);
  });

  test('an unknown value fails the start with E_CONNECTOR_CONFIG naming the allowed values', async () => {
    const result = await startConnector(webhook, { port: '0', signature: 'sha1' }, { WEBHOOK_SECRET: 's' });
    const error = 'error' in result ? result.error : { code: 'started', message: '' };
    expect(error.code).toBe('E_CONNECTOR_CONFIG');
    expect(error.message).toContain('"sha1"');
    for (const allowed of ['any', 'standard-webhooks', 'hmac-sha256']) expect(error.message).toContain(allowed);
  });

  test('a whsec_ secret that is not base64 fails the start, unless only the legacy scheme is used', async () => {
    const result = await startConnector(webhook, { port: '0' }, { WEBHOOK_SECRET: 'whsec_not base64!' });
    expect('error' in result ? result.error.code : 'started').toBe('E_CONNECTOR_CONFIG');
    await run(webhook, { port: '0', signature: 'hmac-sha256' }, { WEBHOOK_SECRET: 'whsec_not base64!' });
  });

  test('standard-webhooks without a secret fails the start even with verify: false', async () => {
    const result = await startConnector(webhook, { port: '0', verify: 'false', signature: 'standard-webhooks' });
    const error = 'error' in result ? result.error : { code: 'started', message: '' };
    expect(error.code).toBe('E_CONNECTOR_CONFIG');
    expect(error.message).toContain('WEBHOOK_SECRET');
  });
});
