/**
 * Webhook mode: Telegram POSTs each Update to our endpoint and, when `setWebhook` was given a
 * `secret_token`, sends it back in `X-Telegram-Bot-Api-Secret-Token` — a missing or wrong header
 * is 401 and nothing is emitted. The answer is 200 as soon as the update was handed over; the
 * reply goes out through `sendMessage` (Telegram would otherwise redeliver a slow update).
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { safeEqual } from '../common/signatures.ts';
import { errorResponse, jsonResponse, parseJsonObject, serveWebhook } from '../common/webhook-server.ts';

export const TELEGRAM_WEBHOOK_PORT = 8788;

export function serveTelegramWebhook(ctx: ConnectorContext, secretToken: string | undefined, onUpdate: (update: unknown) => void): Promise<void> {
  return serveWebhook(ctx, {
    connector: 'telegram',
    defaultPort: TELEGRAM_WEBHOOK_PORT,
    async handle(request, rawBody) {
      if (secretToken !== undefined) {
        const given = request.headers.get('x-telegram-bot-api-secret-token');
        if (given === null || !safeEqual(given, secretToken)) {
          ctx.logger.warn({ connector: 'telegram' }, 'telegram webhook secret token mismatch; request rejected');
          return errorResponse(401, 'E_CONNECTOR_SIGNATURE', 'missing or wrong X-Telegram-Bot-Api-Secret-Token');
        }
      }
      const update = parseJsonObject(rawBody);
      if (update instanceof Response) return update;
      onUpdate(update);
      return jsonResponse(200, { ok: true });
    },
  });
}
