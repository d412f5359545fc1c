/**
 * The provider rules of the chat connectors that e2e tests reach only in part: message
 * splitting, Retry-After, Slack's replay window, Discord's key check, which updates and
 * deliveries are events, settings read from config or secrets under upstream names, and the
 * configuration errors that stop a connector at start.
 */
import { describe, expect, test } from 'bun:test';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { ConnectorError } from '../../bundles/base/connectors/common/connector-error.ts';
import { requiredSetting, setting } from '../../bundles/base/connectors/common/connector-settings.ts';
import { redact } from '../../bundles/base/connectors/common/provider-request.ts';
import { backoffDelay, parseRetryAfter } from '../../bundles/base/connectors/common/retry-policy.ts';
import { splitMessage } from '../../bundles/base/connectors/common/split-message.ts';
import discord from '../../bundles/base/connectors/discord/index.ts';
import { discordVerifier } from '../../bundles/base/connectors/discord/discord-signature.ts';
import github from '../../bundles/base/connectors/github/index.ts';
import { githubDelivery } from '../../bundles/base/connectors/github/github-event.ts';
import slack from '../../bundles/base/connectors/slack/index.ts';
import { slackEvent } from '../../bundles/base/connectors/slack/slack-event.ts';
import { checkSlackSignature } from '../../bundles/base/connectors/slack/slack-signature.ts';
import telegram from '../../bundles/base/connectors/telegram/index.ts';
import { telegramEvent } from '../../bundles/base/connectors/telegram/telegram-update.ts';
import type { ConnectorContext } from '../../shared/types/index.ts';

describe('splitting long replies', () => {
  test('a short text is one piece; a long one breaks at the last space or newline before the limit', () => {
    expect(splitMessage('hello', 10)).toEqual(['hello']);
    expect(splitMessage('aaaa bbbb cccc', 10)).toEqual(['aaaa bbbb', 'cccc']);
    expect(splitMessage('line one\nline two', 12)).toEqual(['line one', 'line two']);
  });

  test('text without a break point is cut hard, never inside a surrogate pair', () => {
    expect(splitMessage('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    const pieces = splitMessage(`${'x'.repeat(9)}😀${'y'.repeat(5)}`, 10);
    expect(pieces).toEqual(['x'.repeat(9), `😀${'y'.repeat(5)}`]);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(10);
  });
});

describe('retry timing', () => {
  test('Retry-After is read as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  test('backoff doubles from the base, is capped, and a longer Retry-After wins', () => {
    const policy = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(backoffDelay(policy, 1)).toBeWithin(800, 1201);
    expect(backoffDelay(policy, 3)).toBeWithin(3200, 4801);
    expect(backoffDelay(policy, 10)).toBeWithin(4000, 6001);
    expect(backoffDelay(policy, 1, 30_000)).toBe(30_000);
  });

  test('credentials are cut out of error messages', () => {
    expect(redact('fetch https://api.telegram.org/bot123:SECRET/sendMessage failed', ['123:SECRET'])).toBe('fetch https://api.telegram.org/bot[redacted]/sendMessage failed');
  });
});

describe('settings', () => {
  test('a setting is read from config, then secrets, under its name or an upstream alias', () => {
    expect(setting({ config: {}, secrets: { TELEGRAM_BOT_TOKEN: 't1' } }, ['token', 'TELEGRAM_BOT_TOKEN'])).toBe('t1');
    expect(setting({ config: { token: 'c' }, secrets: { token: 's' } }, ['token'])).toBe('c');
    expect(setting({ config: { token: ' ' }, secrets: {} }, ['token'])).toBeUndefined();
  });

  test('a missing required setting is E_CONNECTOR_CONFIG naming where to put it', () => {
    let caught: unknown;
    try {
      requiredSetting({ config: {}, secrets: {} }, ['token', 'BOT_TOKEN'], 'telegram', 'the bot token');
    } catch (error) {
      caught = error;
    }
    expect(ConnectorError.isInstance(caught) && caught.code).toBe('E_CONNECTOR_CONFIG');
    expect(String(caught)).toContain('set config.token or secrets.token (also read: BOT_TOKEN)');
  });
});

describe('slack signatures', () => {
  const slackSignature = (secret: string, timestamp: number, text: string) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${text}`).digest('hex')}`;
  const body = '{"type":"event_callback"}';
  test('a correct v0 signature inside the five-minute window passes', () => {
    expect(checkSlackSignature('s3cret', body, '1000', slackSignature('s3cret', 1000, body), 1000 + 299)).toEqual({ ok: true });
  });

  test('outside the window, with a wrong secret or without headers it fails with a reason', () => {
    expect(checkSlackSignature('s3cret', body, '1000', slackSignature('s3cret', 1000, body), 1000 + 301)).toMatchObject({ ok: false, reason: expect.stringContaining('five-minute') });
    expect(checkSlackSignature('s3cret', body, '1000', slackSignature('other', 1000, body), 1000)).toMatchObject({ ok: false, reason: 'signature mismatch' });
    expect(checkSlackSignature('s3cret', body, null, null, 1000)).toMatchObject({ ok: false });
  });
});

describe('discord signatures', () => {
  test('a public key that is not 32 bytes of hex stops the connector with E_CONNECTOR_CONFIG', () => {
    expect(() => discordVerifier('xyz')).toThrow('publicKey is not an Ed25519 public key');
  });

  test('only a signature of timestamp + body by the matching private key verifies', () => {
    const keys = generateKeyPairSync('ed25519');
    const hex = Buffer.from(keys.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex');
    const verify = discordVerifier(hex);
    const signature = sign(null, Buffer.from('123{"type":1}'), keys.privateKey).toString('hex');
    expect(verify('123', '{"type":1}', signature, 123)).toEqual({ ok: true });
    expect(verify('124', '{"type":1}', signature, 124)).toMatchObject({ ok: false });
    expect(verify('123', '{"type":1}', 'zz', 123)).toMatchObject({ ok: false });
  });

  test('a signed timestamp more than five minutes from now is refused (a replay)', () => {
    const keys = generateKeyPairSync('ed25519');
    const verify = discordVerifier(Buffer.from(keys.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex'));
    const signature = sign(null, Buffer.from('1000{"type":1}'), keys.privateKey).toString('hex');
    expect(verify('1000', '{"type":1}', signature, 1000 + 299)).toEqual({ ok: true });
    expect(verify('1000', '{"type":1}', signature, 1000 + 301)).toMatchObject({ ok: false, reason: expect.stringContaining('five-minute') });
    expect(verify('1000', '{"type":1}', signature, 1000 - 301)).toMatchObject({ ok: false });
  });
});

describe('which provider payloads are events', () => {
  test('telegram: messages from bots and updates without text are not events; a caption is text', () => {
    const base = { update_id: 1, message: { message_id: 2, chat: { id: -100, type: 'group', title: 'Team' }, from: { id: 3, is_bot: false } } };
    expect(telegramEvent({ ...base, message: { ...base.message, caption: 'a photo' } })).toMatchObject({ instanceKey: 'telegram:-100', message: { text: 'a photo' }, properties: { chat_title: 'Team' } });
    expect(telegramEvent({ ...base, message: { ...base.message, text: 'hi', from: { id: 4, is_bot: true } } })).toBeUndefined();
    expect(telegramEvent(base)).toBeUndefined();
  });

  test('slack: channel messages without a mention, edits and bot posts are not events', () => {
    const envelope = (event: Record<string, unknown>) => ({ type: 'event_callback', event: { channel: 'C1', ts: '1.1', user: 'U1', text: 'x', ...event } });
    expect(slackEvent(envelope({ type: 'message', channel_type: 'channel' }))).toBeUndefined();
    expect(slackEvent(envelope({ type: 'message', channel_type: 'im', subtype: 'message_changed' }))).toBeUndefined();
    expect(slackEvent(envelope({ type: 'app_mention', bot_id: 'B1' }))).toBeUndefined();
    expect(slackEvent(envelope({ type: 'message', channel_type: 'im' }))?.name).toBe('message_im');
  });

  test("github: only created comments and opened issues / pull requests are events; the bot's own comments are not", () => {
    const body = { action: 'created', repository: { full_name: 'o/r' }, issue: { number: 1 }, comment: { id: 9, body: 'hi', user: { login: 'Bot-Account' } } };
    expect(githubDelivery('issue_comment', 'd1', body, 'bot-account')).toEqual({ kind: 'ignored', reason: 'written by the bot itself (Bot-Account)' });
    expect(githubDelivery('issue_comment', 'd1', body, undefined)).toMatchObject({ kind: 'event', repo: 'o/r', number: '1' });
    expect(githubDelivery('issue_comment', 'd1', { ...body, action: 'edited' }, undefined)).toMatchObject({ kind: 'ignored' });
    expect(githubDelivery('push', 'd1', body, undefined)).toMatchObject({ kind: 'ignored', reason: 'push.created is not handled' });
  });
});

describe('a connector that cannot work refuses to start, saying what to set', () => {
  const context = (config: Record<string, string>, secrets: Record<string, string> = {}): ConnectorContext => ({
    config,
    secrets,
    emit: async () => {},
    request: async () => ({ status: 'ok', text: '' }),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    signal: AbortSignal.abort(),
    onApproval() {},
  });
  const startError = async (run: Promise<void>) => {
    try {
      await run;
    } catch (error) {
      return ConnectorError.isInstance(error) ? { code: error.code, message: error.message } : { code: 'not a ConnectorError', message: String(error) };
    }
    return { code: 'started', message: '' };
  };

  test('telegram without a token, or in webhook mode without a secret token', async () => {
    expect(await startError(telegram(context({})))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('TELEGRAM_BOT_TOKEN') });
    expect(await startError(telegram(context({ mode: 'webhook', token: '1:t' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('WEBHOOK_SECRET') });
    expect(await startError(telegram(context({ mode: 'push', token: '1:t' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('use polling or webhook') });
  });

  test('slack and github without a signing secret, discord without its public key', async () => {
    expect(await startError(slack(context({ SLACK_WEBHOOK_PORT: '0' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('SIGNING_SECRET') });
    expect(await startError(github(context({ port: '0' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('WEBHOOK_SECRET') });
    expect(await startError(discord(context({ port: '0' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('publicKey') });
  });

  test('replies asked for without a token, a bad apiBaseUrl or a bad number are configuration errors too', async () => {
    expect(await startError(slack(context({ port: '0', replies: 'true' }, { SIGNING_SECRET: 's' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('bot token') });
    expect(await startError(github(context({ port: '0', apiBaseUrl: 'ftp://x' }, { WEBHOOK_SECRET: 's' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('must be http(s)') });
    expect(await startError(telegram(context({ token: '1:t', retryAttempts: 'many' })))).toMatchObject({ code: 'E_CONNECTOR_CONFIG', message: expect.stringContaining('retryAttempts is "many"') });
  });

  test('with verify: false and no token a webhook connector starts (and stops with the connection)', async () => {
    expect(await startError(slack(context({ port: '0', verify: 'false' })))).toEqual({ code: 'started', message: '' });
    expect(await startError(github(context({ port: '0', verify: 'false' })))).toEqual({ code: 'started', message: '' });
  });
});
