/**
 * The `telegram` and `slack` tools (SPEC.md §5.3; upstream bundles answer through them) against
 * fake provider APIs on loopback: the API calls they make, the token from the argument or the
 * environment and never in an error, provider errors as E_<TOOL>_API, retries, downloads kept
 * inside the workspace and the bot token sent only to Slack's own hosts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { linkSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handlers as slack } from '../../bundles/base/tools/slack/index.ts';
import { handlers as telegram } from '../../bundles/base/tools/telegram/index.ts';
import { type FakeChatProviders, type RecordedCall, startFakeChatProviders } from '../e2e/fake-chat-providers.ts';
import { asObject, callTool, toolContexts, toolError } from './tool-context.ts';

let fake: FakeChatProviders;
beforeAll(() => {
  fake = startFakeChatProviders();
});
afterAll(() => fake.stop());
const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of ['TELEGRAM_BOT_TOKEN', 'BOT_TOKEN', 'TELEGRAM_TOKEN', 'SLACK_BOT_TOKEN', 'SLACK_TOKEN']) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

const setup = toolContexts();
const telegramContext = () => setup({ apiBaseUrl: `${fake.url}/telegram`, retryBaseMs: 10 });
const slackContext = () => setup({ apiBaseUrl: `${fake.url}/slack`, retryBaseMs: 10 });
const lastCall = (pathPart: string): RecordedCall | undefined => fake.calls.filter((c) => c.path.includes(pathPart)).at(-1);

describe('telegram tool', () => {
  test('send posts sendMessage to the chat (token from TELEGRAM_BOT_TOKEN), replying when asked; long text is split', async () => {
    process.env.TELEGRAM_BOT_TOKEN = '900:env-token';
    const { ctx } = telegramContext();
    const output = asObject(await callTool(telegram, 'send', ctx, { chatId: 42, text: 'hi there', replyToMessageId: 7, parseMode: 'HTML' }));
    expect(output).toMatchObject({ ok: true, chatId: '42' });
    expect(lastCall('/bot900:env-token/sendMessage')?.body).toEqual({ chat_id: 42, text: 'hi there', parse_mode: 'HTML', reply_parameters: { message_id: 7, allow_sending_without_reply: true } });
    const long = asObject(await callTool(telegram, 'send', ctx, { chatId: '42', text: 'y '.repeat(3000) }));
    expect(long.messageIds).toHaveLength(2);
  });

  test('the token argument wins; without any token the call is E_TOOL_CONFIG naming the variables', async () => {
    const { ctx } = telegramContext();
    await callTool(telegram, 'set_chat_action', ctx, { chatId: 5, action: 'upload-photo', token: '901:arg-token' });
    expect(lastCall('/bot901:arg-token/sendChatAction')?.body).toEqual({ chat_id: 5, action: 'upload_photo' });
    const error = await toolError(callTool(telegram, 'send', ctx, { chatId: 5, text: 'x' }));
    expect(error.code).toBe('E_TOOL_CONFIG');
    expect(error.message).toContain('TELEGRAM_BOT_TOKEN / BOT_TOKEN / TELEGRAM_TOKEN');
  });

  test('edit, delete and react call their Bot API methods', async () => {
    const { ctx } = telegramContext();
    const token = '902:t';
    await callTool(telegram, 'edit', ctx, { token, chatId: 1, messageId: '9', text: 'new' });
    expect(lastCall('/editMessageText')?.body).toEqual({ chat_id: 1, message_id: 9, text: 'new' });
    await callTool(telegram, 'delete', ctx, { token, chatId: 1, messageId: 9 });
    expect(lastCall('/deleteMessage')?.body).toEqual({ chat_id: 1, message_id: 9 });
    await callTool(telegram, 'react', ctx, { token, chatId: 1, messageId: 9, emoji: '👍', emojis: ['🎉'] });
    expect(lastCall('/setMessageReaction')?.body).toEqual({ chat_id: 1, message_id: 9, reaction: [{ type: 'emoji', emoji: '👍' }, { type: 'emoji', emoji: '🎉' }] });
  });

  test('a Telegram error is E_TELEGRAM_API with its description and without the token; a 429 is retried', async () => {
    const { ctx } = telegramContext();
    const token = '903:secret-token';
    fake.failNext(`/bot${token}/sendMessage`, [{ status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } }]);
    const error = await toolError(callTool(telegram, 'send', ctx, { token, chatId: 404, text: 'x' }));
    expect(error.code).toBe('E_TELEGRAM_API');
    expect(error.message).toContain('Bad Request: chat not found');
    expect(error.message).not.toContain('secret-token');
    fake.failNext(`/bot${token}/sendMessage`, [{ status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests', parameters: { retry_after: 0 } } }]);
    expect(asObject(await callTool(telegram, 'send', ctx, { token, chatId: 405, text: 'x' })).ok).toBe(true);
  });

  test('download_file resolves the file_id and saves the file inside the workspace', async () => {
    const { ctx, workdir } = telegramContext();
    const output = asObject(await callTool(telegram, 'download_file', ctx, { token: '904:t', fileId: 'F1' }));
    expect(output).toMatchObject({ ok: true, fileId: 'F1', filePath: 'documents/report.txt', savedTo: 'downloads/report.txt', mimeType: 'text/plain' });
    expect(readFileSync(join(workdir, 'downloads/report.txt'), 'utf8')).toBe('bytes of report.txt');
    const escape = await toolError(callTool(telegram, 'download_file', ctx, { token: '904:t', fileId: 'F1', savePath: '../outside.txt' }));
    expect(escape.code).toBe('E_FS_OUTSIDE_WORKDIR');
    // Saved again over a longer file: replaced whole. A hard link (which may be a file outside) is refused.
    writeFileSync(join(workdir, 'downloads/report.txt'), 'x'.repeat(100));
    await callTool(telegram, 'download_file', ctx, { token: '904:t', fileId: 'F1' });
    expect(readFileSync(join(workdir, 'downloads/report.txt'), 'utf8')).toBe('bytes of report.txt');
    linkSync(join(workdir, 'downloads/report.txt'), join(workdir, 'linked.txt'));
    expect((await toolError(callTool(telegram, 'download_file', ctx, { token: '904:t', fileId: 'F1', savePath: 'linked.txt' }))).code).toBe('E_FS_HARDLINK');
  });
});

describe('slack tool', () => {
  test('send posts chat.postMessage into the thread with the bot token from SLACK_BOT_TOKEN', async () => {
    process.env.SLACK_BOT_TOKEN = 'xoxb-env';
    const { ctx } = slackContext();
    const output = asObject(await callTool(slack, 'send', ctx, { channelId: 'C1', text: 'hello', threadTs: '1.1' }));
    expect(output).toMatchObject({ ok: true, channelId: 'C1', threadTs: '1.1' });
    const call = lastCall('/slack/chat.postMessage');
    expect(call?.body).toEqual({ channel: 'C1', text: 'hello', thread_ts: '1.1' });
    expect(call?.headers.authorization).toBe('Bearer xoxb-env');
  });

  test('read returns the messages and the next cursor; a thread is read with conversations.replies', async () => {
    const { ctx } = slackContext();
    const output = asObject(await callTool(slack, 'read', ctx, { token: 'xoxb-t', channelId: 'C1', limit: 2 }));
    expect(output).toEqual({ ok: true, channelId: 'C1', nextCursor: 'next-page', messages: [{ ts: '2.2', user: 'U2', text: 'second', threadTs: null }, { ts: '1.1', user: 'U1', text: 'first', threadTs: '1.1' }] });
    expect(lastCall('/slack/conversations.history')?.body).toEqual({ channel: 'C1', limit: 2 });
    await callTool(slack, 'read', ctx, { token: 'xoxb-t', channelId: 'C1', threadTs: '1.1' });
    expect(lastCall('/slack/conversations.replies')?.body).toEqual({ channel: 'C1', ts: '1.1', limit: 20 });
  });

  test('edit, delete and react (one reactions.add per emoji, colons stripped)', async () => {
    const { ctx } = slackContext();
    await callTool(slack, 'edit', ctx, { token: 'xoxb-t', channelId: 'C1', messageTs: '3.3', text: 'fixed' });
    expect(lastCall('/slack/chat.update')?.body).toEqual({ channel: 'C1', ts: '3.3', text: 'fixed' });
    await callTool(slack, 'delete', ctx, { token: 'xoxb-t', channelId: 'C1', messageTs: '3.3' });
    expect(lastCall('/slack/chat.delete')?.body).toEqual({ channel: 'C1', ts: '3.3' });
    const before = fake.calls.length;
    await callTool(slack, 'react', ctx, { token: 'xoxb-t', channelId: 'C1', messageTs: '3.3', emojis: [':thumbsup:', 'tada'] });
    expect(fake.calls.slice(before).map((c) => c.body.name)).toEqual(['thumbsup', 'tada']);
  });

  test("a Slack error (ok:false) is E_SLACK_API with Slack's code, not retried", async () => {
    const { ctx } = slackContext();
    fake.failNext('/slack/chat.postMessage', [{ status: 200, body: { ok: false, error: 'channel_not_found' } }]);
    const before = fake.calls.length;
    const error = await toolError(callTool(slack, 'send', ctx, { token: 'xoxb-hidden', channelId: 'CX', text: 'x' }));
    expect(error.code).toBe('E_SLACK_API');
    expect(error.message).toContain('channel_not_found');
    expect(fake.calls.length - before).toBe(1);
  });

  test('download_file sends the token only to Slack hosts (or the configured API host)', async () => {
    const { ctx, workdir } = slackContext();
    const refused = await toolError(callTool(slack, 'download_file', ctx, { token: 'xoxb-t', url: 'https://evil.example.com/steal' }));
    expect(refused.code).toBe('E_TOOL_INVALID_ARGS');
    const output = asObject(await callTool(slack, 'download_file', ctx, { token: 'xoxb-t', url: `${fake.url}/slack-files/photo.png`, includeBase64: true }));
    expect(output).toMatchObject({ ok: true, savedTo: 'downloads/photo.png', base64: Buffer.from('bytes of photo.png').toString('base64') });
    expect(readFileSync(join(workdir, 'downloads/photo.png'), 'utf8')).toBe('bytes of photo.png');
  });
});
