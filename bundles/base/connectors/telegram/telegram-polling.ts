/**
 * Long polling (`getUpdates`). Telegram keeps the confirmed offset itself: asking with
 * `offset = last update_id + 1` confirms everything before it, and a poll without an offset
 * (after a restart) starts at the first unconfirmed update. So each batch is handed to the
 * daemon first and confirmed by the very next poll — an update is neither lost when the
 * connector dies before handing it over, nor handled twice once it was confirmed. The only
 * window for a repeat is a crash between handing a batch over and the next poll reaching
 * Telegram (milliseconds); the in-memory RecentIds guard covers repeats within one process.
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from '../common/connector-error.ts';
import { numberAt } from '../common/payload-fields.ts';
import { backoffDelay, sleep, type RetryPolicy } from '../common/retry-policy.ts';
import type { TelegramApi } from './telegram-api.ts';

export interface PollingOptions {
  timeoutSeconds: number;
  policy: RetryPolicy;
  onUpdate(update: unknown): void;
}

export async function pollUpdates(ctx: ConnectorContext, api: TelegramApi, options: PollingOptions): Promise<void> {
  let offset: number | undefined;
  let failures = 0;
  while (!ctx.signal.aborted) {
    const outcome = await api.getUpdates(offset, options.timeoutSeconds);
    if (ctx.signal.aborted) return;
    if (outcome.kind === 'failed') {
      // A rejected token is a configuration error: fail loudly instead of polling forever.
      if (outcome.status === 401 || outcome.status === 404) {
        throw new ConnectorError('E_CONNECTOR_AUTH', `telegram rejected the bot token: ${outcome.message}`, 'check config.token / secrets.TELEGRAM_BOT_TOKEN');
      }
      failures += 1;
      const delayMs = backoffDelay(options.policy, failures, outcome.retryAfterMs);
      ctx.logger.warn({ call: 'telegram getUpdates', failures, status: outcome.status ?? null, delayMs, error: outcome.message }, 'telegram poll failed; retrying');
      if (!(await sleep(delayMs, ctx.signal))) return;
      continue;
    }
    failures = 0;
    const updates = Array.isArray(outcome.body) ? outcome.body : [];
    for (const update of updates) {
      const id = numberAt(update, 'update_id');
      if (id === undefined) continue;
      if (offset === undefined || id >= offset) offset = id + 1;
      options.onUpdate(update);
    }
  }
}
