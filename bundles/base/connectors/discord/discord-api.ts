/**
 * Answers to an interaction go through its webhook, authorised by the interaction token (valid
 * 15 minutes): the deferred "thinking…" message is edited with
 * `PATCH /webhooks/{application_id}/{token}/messages/@original`, further pieces are follow-ups
 * `POST /webhooks/{application_id}/{token}`. Discord's 429 carries `retry_after` (seconds).
 */
import type { Logger } from '../../../../shared/types/index.ts';
import { type Interpret, interpretHttpStatus, requestWithRetry } from '../common/provider-request.ts';
import { numberAt } from '../common/payload-fields.ts';
import type { RetryPolicy } from '../common/retry-policy.ts';

export const DISCORD_API_BASE_URL = 'https://discord.com/api/v10';
/** Discord's limit for a message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

export const interpretDiscord: Interpret = (status, body, headers) => {
  const outcome = interpretHttpStatus(status, body, headers);
  const retryAfter = numberAt(body, 'retry_after');
  if (outcome.kind === 'failed' && outcome.retryAfterMs === undefined && retryAfter !== undefined) return { ...outcome, retryAfterMs: Math.ceil(retryAfter * 1000) };
  return outcome;
};

export interface DiscordApiOptions {
  baseUrl: string;
  policy: RetryPolicy;
  logger: Logger;
  signal: AbortSignal;
}

export function createDiscordApi(options: DiscordApiOptions) {
  const call = (label: string, method: 'PATCH' | 'POST', path: string, content: string, token: string) =>
    requestWithRetry(
      { label, method, url: `${options.baseUrl}${path}`, body: { content, allowed_mentions: { parse: [] } } },
      { signal: options.signal, secrets: [token], interpret: interpretDiscord, policy: options.policy, logger: options.logger },
    );
  return {
    async editOriginal(applicationId: string, token: string, content: string): Promise<void> {
      await call('discord edit original response', 'PATCH', `/webhooks/${applicationId}/${token}/messages/@original`, content, token);
    },
    async followUp(applicationId: string, token: string, content: string): Promise<void> {
      await call('discord follow-up message', 'POST', `/webhooks/${applicationId}/${token}`, content, token);
    },
  };
}
