/**
 * The `telegram` connector against a fake Bot API, through the real daemon: long polling and
 * webhook mode, the conversation key `telegram:<chat_id>`, properties reaching the model, replies
 * sent back with sendMessage (split at 4096), retries on 5xx/429, the webhook secret token, no
 * update handled twice across a connector restart, and credentials never logged.
 */
import { describe, expect, test } from 'bun:test';
import type { RecordedCall } from './fake-chat-providers.ts';
import { isRunning, waitUntil } from './daemon-harness.ts';
import { chatRig, conversationText, expectNoCredentialLogged, instanceExists } from './chat-connectors-harness.ts';

const rig = chatRig();
let nextUpdateId = 1;

function textUpdate(chatId: number, text: string, extra: { messageId?: number; username?: string } = {}): Record<string, unknown> {
  const updateId = nextUpdateId++;
  return {
    update_id: updateId,
    message: {
      message_id: extra.messageId ?? 1000 + updateId,
      date: 1_700_000_000,
      chat: { id: chatId, type: 'private' },
      from: { id: 77, is_bot: false, first_name: 'Ann', username: extra.username ?? 'ann' },
      text,
    },
  };
}

const sentTo = (token: string, chatId: number) => (call: RecordedCall) => call.path === `/telegram/bot${token}/sendMessage` && call.body.chat_id === String(chatId);

describe('telegram: long polling', () => {
  test('a message becomes a turn on telegram:<chat_id>; its properties reach the model; the reply answers it via sendMessage', async () => {
    const { fake, credentials } = rig();
    fake.pushTelegramUpdate(credentials.tgPollToken, textUpdate(4242, 'hello bot', { messageId: 10 }));
    const [reply] = await fake.waitForDelivered(sentTo(credentials.tgPollToken, 4242), 'the reply to chat 4242');
    const text = String(reply?.body.text);
    expect(text).toStartWith('desk got: hello bot');
    expect(text).toContain('instanceKey: telegram:4242');
    expect(text).toContain('properties.chat_id: 4242');
    expect(text).toContain('properties.username: ann');
    expect(text).toContain('properties.message_id: 10');
    expect(reply?.body.reply_parameters).toEqual({ message_id: 10, allow_sending_without_reply: true });
  });

  test('an update is handled once, also when the connector process is killed and restarted', async () => {
    const { daemon, fake, credentials } = rig();
    const before = (await daemon.processes()).find((row) => row.connection === 'tg-poll');
    const pid = Number(before?.pid);
    process.kill(pid, 'SIGKILL');
    await waitUntil(async () => {
      const row = (await daemon.processes()).find((r) => r.connection === 'tg-poll');
      return !isRunning(pid) && typeof row?.pid === 'number' && row.pid !== pid && row.status === 'idle';
    }, 'the tg-poll connector to be restarted');
    fake.pushTelegramUpdate(credentials.tgPollToken, textUpdate(4242, 'second message'));
    await fake.waitForDelivered((c) => sentTo(credentials.tgPollToken, 4242)(c) && String(c.body.text).includes('second message'), 'the reply to the second message');
    const replies = fake.delivered(sentTo(credentials.tgPollToken, 4242)).map((c) => String(c.body.text).split('\n')[0]);
    expect(replies).toEqual(['desk got: hello bot', 'desk got: second message']);
    const conversation = await conversationText(rig(), 'desk', 'telegram:4242');
    expect(conversation.split('"hello bot"').length - 1).toBe(1);
  });

  test('a reply over 4096 characters is sent in pieces; only the first replies to the message', async () => {
    const { fake, credentials } = rig();
    const long = `${'word '.repeat(1100)}end`;
    fake.pushTelegramUpdate(credentials.tgPollToken, textUpdate(5151, long, { messageId: 55 }));
    const pieces = await fake.waitForDelivered(sentTo(credentials.tgPollToken, 5151), 'two pieces of the long reply', 2);
    expect(pieces.length).toBe(2);
    for (const piece of pieces) expect(String(piece.body.text).length).toBeLessThanOrEqual(4096);
    expect(pieces[0]?.body.reply_parameters).toEqual({ message_id: 55, allow_sending_without_reply: true });
    expect(pieces[1]?.body.reply_parameters).toBeUndefined();
    expect(pieces.map((p) => String(p.body.text)).join(' ')).toContain(`${'word '.repeat(1099)}word end`);
  });

  test('sendMessage failing with 500 and then 429 (retry_after) is retried until the reply is delivered, once', async () => {
    const { fake, credentials, daemon } = rig();
    fake.failNext(`bot${credentials.tgPollToken}/sendMessage`, [
      { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } },
      { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } },
    ]);
    fake.pushTelegramUpdate(credentials.tgPollToken, textUpdate(6161, 'flaky provider'));
    await fake.waitForDelivered(sentTo(credentials.tgPollToken, 6161), 'the reply after two failures');
    const attempts = fake.calls.filter((c) => c.path === `/telegram/bot${credentials.tgPollToken}/sendMessage` && c.body.chat_id === '6161');
    expect(attempts.map((c) => c.status)).toEqual([500, 429, 200]);
    expect(daemon.logs.filter((l) => l.msg === 'provider call failed; retrying' && l.call === 'telegram sendMessage').length).toBeGreaterThanOrEqual(2);
  });

  test('a reply that keeps failing is given up after the bounded tries and logged; later messages still get replies', async () => {
    const { fake, credentials, daemon } = rig();
    fake.failNext(`bot${credentials.tgPollToken}/sendMessage`, Array.from({ length: 5 }, () => ({ status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } })));
    fake.pushTelegramUpdate(credentials.tgPollToken, textUpdate(7171, 'doomed reply'));
    await daemon.waitForLog('tg-poll giving up a reply', (l) => l.msg === 'reply not posted' && l.connection === 'tg-poll');
    expect(fake.calls.filter((c) => c.body.chat_id === '7171').map((c) => c.status)).toEqual([502, 502, 502, 502, 502]);
    fake.pushTelegramUpdate(credentials.tgPollToken, textUpdate(7171, 'after the outage'));
    await fake.waitForDelivered(sentTo(credentials.tgPollToken, 7171), 'the next reply');
    expect(await conversationText(rig(), 'desk', 'telegram:7171')).toContain('doomed reply');
  });
});

describe('telegram: webhook', () => {
  const post = (body: unknown, secretToken?: string) =>
    fetch(rig().urls.telegramHook, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secretToken !== undefined ? { 'x-telegram-bot-api-secret-token': secretToken } : {}) },
      body: JSON.stringify(body),
    });

  test('an update with the right secret token is a turn, answered with sendMessage (token given in config)', async () => {
    const { fake, credentials } = rig();
    const response = await post(textUpdate(8181, 'via webhook', { messageId: 81 }), credentials.tgHookSecret);
    expect(response.status).toBe(200);
    const [reply] = await fake.waitForDelivered(sentTo(credentials.tgHookToken, 8181), 'the webhook reply');
    expect(String(reply?.body.text)).toStartWith('desk got: via webhook');
    expect(String(reply?.body.text)).toContain('properties.chat_id: 8181');
  });

  test('a missing or wrong X-Telegram-Bot-Api-Secret-Token is 401 and nothing is emitted', async () => {
    const { fake, credentials } = rig();
    expect((await post(textUpdate(9191, 'no secret'))).status).toBe(401);
    expect((await post(textUpdate(9191, 'wrong secret'), 'not-the-secret')).status).toBe(401);
    // Barrier: a valid update sent afterwards is answered, so anything emitted before it was routed.
    await post(textUpdate(9292, 'barrier'), credentials.tgHookSecret);
    await fake.waitForDelivered(sentTo(credentials.tgHookToken, 9292), 'the barrier reply');
    expect(instanceExists(rig(), 'desk', 'telegram:9191')).toBe(false);
    expect(fake.calls.some((c) => c.body.chat_id === '9191')).toBe(false);
  });
});

describe('telegram: reply timeout', () => {
  test("replyTimeoutMs bounds the wait for the agent; the chat then gets errorReply (ingress routes to slowpoke)", async () => {
    const { fake, credentials } = rig();
    fake.pushTelegramUpdate(credentials.tgSlowToken, textUpdate(1212, 'take your time'));
    const [reply] = await fake.waitForDelivered(sentTo(credentials.tgSlowToken, 1212), 'the timeout notice');
    expect(reply?.body.text).toBe('Still thinking, sorry.');
    expect(instanceExists(rig(), 'slowpoke', 'slow:1212')).toBe(true);
  });
});

describe('telegram: credentials', () => {
  test('no token or secret appears in any log line', () => {
    expectNoCredentialLogged(rig());
  });
});
