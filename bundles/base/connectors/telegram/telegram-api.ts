/**
 * The two Bot API methods the connector uses, `getUpdates` and `sendMessage`
 * (https://core.telegram.org/bots/api). Telegram answers `{ok, result}` or
 * `{ok:false, error_code, description, parameters.retry_after}`; the token is part of the URL,
 * so labels and errors name the method only.
 */
import type { Logger } from '../../../../shared/types/index.ts';
import { type Attempt, type Interpret, attemptRequest, requestWithRetry } from '../common/provider-request.ts';
import { isRecord, numberAt, recordAt, textAt } from '../common/payload-fields.ts';
import type { RetryPolicy } from '../common/retry-policy.ts';

export const TELEGRAM_API_BASE_URL = 'https://api.telegram.org';
/** Telegram's limit for one message's text. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

export const interpretTelegram: Interpret = (status, body) => {
  if (status >= 200 && status < 300 && isRecord(body) && body.ok === true) return { kind: 'ok', body: body.result };
  const code = numberAt(body, 'error_code') ?? status;
  const retryAfter = numberAt(recordAt(body, 'parameters'), 'retry_after');
  const description = textAt(body, 'description') ?? `HTTP ${status}`;
  return {
    kind: 'failed',
    retryable: code === 429 || code >= 500 || status >= 500,
    status,
    message: `${code} ${description}`,
    ...(retryAfter !== undefined ? { retryAfterMs: retryAfter * 1000 } : {}),
  };
};

export interface TelegramApiOptions {
  baseUrl: string;
  token: string;
  policy: RetryPolicy;
  logger: Logger;
  signal: AbortSignal;
}

export interface TelegramApi {
  /** One long poll; never throws. */
  getUpdates(offset: number | undefined, timeoutSeconds: number): Promise<Attempt>;
  /** Posts one message (retried); throws E_PROVIDER_API when it finally fails. */
  sendMessage(chatId: string, text: string, replyToMessageId?: string): Promise<void>;
}

export function createTelegramApi(options: TelegramApiOptions): TelegramApi {
  const url = (method: string) => `${options.baseUrl}/bot${options.token}/${method}`;
  const context = { signal: options.signal, secrets: [options.token], interpret: interpretTelegram };
  return {
    getUpdates(offset, timeoutSeconds) {
      return attemptRequest(
        {
          label: 'telegram getUpdates',
          method: 'POST',
          url: url('getUpdates'),
          body: { ...(offset !== undefined ? { offset } : {}), timeout: timeoutSeconds, allowed_updates: ['message'] },
          timeoutMs: (timeoutSeconds + 10) * 1000,
        },
        context,
      );
    },
    async sendMessage(chatId, text, replyToMessageId) {
      const replyTo = replyToMessageId === undefined ? undefined : Number(replyToMessageId);
      await requestWithRetry(
        {
          label: 'telegram sendMessage',
          method: 'POST',
          url: url('sendMessage'),
          body: {
            chat_id: chatId,
            text,
            ...(replyTo !== undefined && Number.isInteger(replyTo) ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
          },
        },
        { ...context, policy: options.policy, logger: options.logger },
      );
    },
  };
}
