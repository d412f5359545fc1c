/**
 * The `slack` connector (Events API over HTTP) against a fake Slack Web API, through the real
 * daemon: the v0 signature and its five-minute window, url_verification, app_mention and
 * message_im turns on `slack:<channel>:<thread_ts|ts>` with their properties, replies in the
 * thread via chat.postMessage with the bot token, redeliveries and bot messages not re-emitted,
 * 429/5xx retried.
 */
import { describe, expect, test } from 'bun:test';
import type { RecordedCall } from './fake-chat-providers.ts';
import { chatRig, expectNoCredentialLogged, instanceExists, slackSignature } from './chat-connectors-harness.ts';

const rig = chatRig();
let nextEvent = 1;

function callback(event: Record<string, unknown>): Record<string, unknown> {
  return { type: 'event_callback', team_id: 'T1', event_id: `Ev${nextEvent++}`, event: { team: 'T1', user: 'U42', ...event } };
}

async function postSigned(body: unknown, options: { timestamp?: number; signingSecret?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const text = JSON.stringify(body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = slackSignature(options.signingSecret ?? rig().credentials.slackSigning, timestamp, text);
  return fetch(rig().urls.slack, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature, ...options.headers },
    body: text,
  });
}

const postedTo = (channel: string) => (call: RecordedCall) => call.path === '/slack/chat.postMessage' && call.body.channel === channel;

describe('slack: request verification', () => {
  test('url_verification is answered with the challenge', async () => {
    const response = await postSigned({ type: 'url_verification', challenge: 'c-123', token: 'legacy' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'c-123' });
  });

  test('a wrong signature, a missing one or a stale timestamp is 401 and nothing is emitted', async () => {
    const { fake } = rig();
    const event = callback({ type: 'app_mention', channel: 'CBAD', ts: '100.1', text: '<@B1> sneaky' });
    expect((await postSigned(event, { signingSecret: 'not-the-secret' })).status).toBe(401);
    expect((await fetch(rig().urls.slack, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) })).status).toBe(401);
    expect((await postSigned(event, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
    // Barrier: a valid event sent afterwards is answered, so anything emitted before it was routed.
    expect((await postSigned(callback({ type: 'app_mention', channel: 'CBARRIER', ts: '100.2', text: 'barrier' }))).status).toBe(200);
    await fake.waitForDelivered(postedTo('CBARRIER'), 'the barrier reply');
    expect(instanceExists(rig(), 'desk', 'slack:CBAD:100.1')).toBe(false);
    expect(fake.calls.some((c) => c.body.channel === 'CBAD')).toBe(false);
  });
});

describe('slack: events and replies', () => {
  test('an app_mention is a turn on slack:<channel>:<ts> with its properties; the reply goes into its thread with the bot token', async () => {
    const { fake, credentials } = rig();
    expect((await postSigned(callback({ type: 'app_mention', channel: 'C1', ts: '1700000000.000100', text: '<@B1> status?' }))).status).toBe(200);
    const [reply] = await fake.waitForDelivered(postedTo('C1'), 'the reply in C1');
    expect(reply?.body.thread_ts).toBe('1700000000.000100');
    expect(reply?.headers.authorization).toBe(`Bearer ${credentials.slackToken}`);
    const text = String(reply?.body.text);
    expect(text).toStartWith('desk got: <@B1> status?');
    expect(text).toContain('instanceKey: slack:C1:1700000000.000100');
    expect(text).toContain('properties.channel: C1');
    expect(text).toContain('properties.user: U42');
    expect(text).toContain('properties.team: T1');
    expect(text).toContain('properties.thread_ts: 1700000000.000100');
  });

  test('a direct message inside a thread is a message_im turn keyed by the thread; the reply stays in that thread', async () => {
    const { fake } = rig();
    await postSigned(callback({ type: 'message', channel_type: 'im', channel: 'D9', ts: '1700000001.000200', thread_ts: '1700000000.999', text: 'follow-up' }));
    const [reply] = await fake.waitForDelivered(postedTo('D9'), 'the reply in D9');
    expect(reply?.body.thread_ts).toBe('1700000000.999');
    expect(String(reply?.body.text)).toContain('eventType: connector.message_im');
    expect(String(reply?.body.text)).toContain('instanceKey: slack:D9:1700000000.999');
  });

  test('a redelivery (X-Slack-Retry-Num) of an event already handled is answered 200 and not emitted again; bot messages are ignored', async () => {
    const { fake } = rig();
    const event = callback({ type: 'app_mention', channel: 'C2', ts: '200.1', text: 'once please' });
    await postSigned(event);
    const retry = await postSigned(event, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    expect(retry.status).toBe(200);
    const bot = await postSigned(callback({ type: 'message', channel_type: 'im', channel: 'C2', ts: '200.2', text: 'from a bot', bot_id: 'B1' }));
    expect(await bot.json()).toMatchObject({ ok: true, ignored: true });
    await fake.waitForDelivered(postedTo('C2'), 'the reply in C2');
    // Barrier: a later event's reply means the retry, had it been emitted, would have been answered too.
    await postSigned(callback({ type: 'app_mention', channel: 'C2B', ts: '200.3', text: 'barrier' }));
    await fake.waitForDelivered(postedTo('C2B'), 'the barrier reply');
    expect(fake.delivered(postedTo('C2')).length).toBe(1);
  });

  test('chat.postMessage failing with 429 (Retry-After) and 503 is retried until the reply is posted, once', async () => {
    const { fake } = rig();
    fake.failNext('/slack/chat.postMessage', [
      { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } },
      { status: 503, body: { ok: false, error: 'service_unavailable' } },
    ]);
    await postSigned(callback({ type: 'app_mention', channel: 'C3', ts: '300.1', text: 'busy day' }));
    await fake.waitForDelivered(postedTo('C3'), 'the reply after two failures');
    expect(fake.calls.filter(postedTo('C3')).map((c) => c.status)).toEqual([429, 503, 200]);
  });

  test('no token or secret appears in any log line', () => {
    expectNoCredentialLogged(rig());
  });
});
