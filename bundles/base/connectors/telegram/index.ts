/**
 * `telegram` connector: a Telegram bot, by long polling (`mode: polling`, the default) or by
 * webhook (`mode: webhook`). Each text message becomes a `telegram_message` turn on
 * `telegram:<chat_id>`; the agent's reply is sent back with `sendMessage` as a reply to that
 * message, split at Telegram's 4096-character limit, retried on 429/5xx/network errors.
 *
 * Settings (config or secrets): `token` (also TELEGRAM_BOT_TOKEN / BOT_TOKEN / TELEGRAM_TOKEN),
 * `apiBaseUrl` (https://api.telegram.org), `mode`, `pollTimeoutSeconds` (30); webhook mode:
 * `host`, `port` (8788), `path` (/), `secretToken` (also WEBHOOK_SECRET; `verify: false` to run
 * without one); replies: see common/reply-relay.ts; retries: common/retry-policy.ts.
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from '../common/connector-error.ts';
import { baseUrlSetting, flagSetting, numberSetting, requiredSetting, setting } from '../common/connector-settings.ts';
import { idAt } from '../common/payload-fields.ts';
import { RecentIds } from '../common/recent-ids.ts';
import { createReplyRelay } from '../common/reply-relay.ts';
import { retryPolicyFrom } from '../common/retry-policy.ts';
import { splitMessage } from '../common/split-message.ts';
import { TELEGRAM_API_BASE_URL, TELEGRAM_MESSAGE_LIMIT, createTelegramApi } from './telegram-api.ts';
import { pollUpdates } from './telegram-polling.ts';
import { telegramEvent } from './telegram-update.ts';
import { serveTelegramWebhook } from './telegram-webhook.ts';

export const TOKEN_NAMES = ['token', 'TELEGRAM_BOT_TOKEN', 'BOT_TOKEN', 'TELEGRAM_TOKEN'] as const;

export async function runTelegram(ctx: ConnectorContext, mode: string): Promise<void> {
  if (mode !== 'polling' && mode !== 'webhook') {
    throw new ConnectorError('E_CONNECTOR_CONFIG', `telegram connector: mode is "${mode}"`, 'use polling or webhook');
  }
  const token = requiredSetting(ctx, TOKEN_NAMES, 'telegram', 'the bot token');
  const policy = retryPolicyFrom(ctx, 'telegram');
  const api = createTelegramApi({
    baseUrl: baseUrlSetting(ctx, ['apiBaseUrl', 'TELEGRAM_API_BASE_URL'], TELEGRAM_API_BASE_URL, 'telegram'),
    token,
    policy,
    logger: ctx.logger,
    signal: ctx.signal,
  });
  const relay = createReplyRelay(ctx, { connector: 'telegram', secrets: [token] });
  const seen = new RecentIds();

  const onUpdate = (update: unknown) => {
    const event = telegramEvent(update);
    if (!event) {
      ctx.logger.debug({ updateId: idAt(update, 'update_id') ?? null }, 'telegram update without a text message from a person; ignored');
      return;
    }
    const updateId = event.properties.update_id;
    if (updateId !== undefined && !seen.firstTime(updateId)) return;
    const chatId = event.properties.chat_id ?? '';
    const messageId = event.properties.message_id;
    relay.relay(event, async (text) => {
      const pieces = splitMessage(text, TELEGRAM_MESSAGE_LIMIT);
      for (const [i, piece] of pieces.entries()) await api.sendMessage(chatId, piece, i === 0 ? messageId : undefined);
    });
  };

  if (mode === 'polling') {
    const timeoutSeconds = numberSetting(ctx, ['pollTimeoutSeconds', 'TELEGRAM_POLL_TIMEOUT_SECONDS'], 30, 'telegram', { min: 0, max: 50 });
    // Two pollers of one bot token take each other's updates: in a cluster, one node polls at a time.
    await ctx.exclusive?.();
    ctx.logger.info({ connector: 'telegram', mode }, 'telegram polling');
    await pollUpdates(ctx, api, { timeoutSeconds, policy, onUpdate });
  } else {
    const secretToken = setting(ctx, ['secretToken', 'WEBHOOK_SECRET', 'TELEGRAM_WEBHOOK_SECRET', 'SECRET_TOKEN']);
    if (secretToken === undefined && flagSetting(ctx, ['verify'], true, 'telegram')) {
      throw new ConnectorError(
        'E_CONNECTOR_CONFIG',
        'telegram connector: webhook mode needs the secret_token that setWebhook was given',
        'set secrets.WEBHOOK_SECRET (or config.verify: false to accept unverified requests)',
      );
    }
    await serveTelegramWebhook(ctx, secretToken, onUpdate);
  }
  await relay.idle();
}

export default async function telegram(ctx: ConnectorContext): Promise<void> {
  await runTelegram(ctx, setting(ctx, ['mode']) ?? 'polling');
}
