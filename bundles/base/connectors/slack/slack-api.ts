/**
 * `chat.postMessage` (https://api.slack.com/methods/chat.postMessage) with the bot token as a
 * Bearer credential. Slack reports most errors as HTTP 200 `{ok:false, error}`; only
 * `ratelimited` (or a 429 / 5xx) is worth retrying.
 */
import type { Logger } from '../../../../shared/types/index.ts';
import { type Interpret, interpretHttpStatus, requestWithRetry } from '../common/provider-request.ts';
import { isRecord, textAt } from '../common/payload-fields.ts';
import type { RetryPolicy } from '../common/retry-policy.ts';

export const SLACK_API_BASE_URL = 'https://slack.com/api';
/** Slack truncates message text beyond 40,000 characters. */
export const SLACK_MESSAGE_LIMIT = 40_000;

export const interpretSlack: Interpret = (status, body, headers) => {
  const http = interpretHttpStatus(status, body, headers);
  if (http.kind === 'failed' || (isRecord(body) && body.ok === true)) return http;
  const error = textAt(body, 'error') ?? 'unexpected answer';
  return { kind: 'failed', retryable: error === 'ratelimited', status, message: `slack error: ${error}` };
};

export interface SlackApiOptions {
  baseUrl: string;
  token: string;
  policy: RetryPolicy;
  logger: Logger;
  signal: AbortSignal;
}

export function createSlackApi(options: SlackApiOptions) {
  return {
    async postMessage(channel: string, text: string, threadTs: string | undefined): Promise<void> {
      await requestWithRetry(
        {
          label: 'slack chat.postMessage',
          method: 'POST',
          url: `${options.baseUrl}/chat.postMessage`,
          headers: { authorization: `Bearer ${options.token}` },
          body: { channel, text, ...(threadTs !== undefined ? { thread_ts: threadTs } : {}) },
        },
        { signal: options.signal, secrets: [options.token], interpret: interpretSlack, policy: options.policy, logger: options.logger },
      );
    },
  };
}
