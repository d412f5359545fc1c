/**
 * `slack` connector: the Slack Events API over HTTP. Every request must carry a valid v0
 * signature made with the app's signing secret (401 and nothing emitted otherwise); the
 * `url_verification` handshake is answered; `app_mention` and `message_im` events become turns on
 * `slack:<channel>:<thread_ts|ts>` and the agent's reply is posted into that thread with
 * `chat.postMessage`. Slack redelivers an event it thinks was lost (`X-Slack-Retry-Num`): an
 * event id already handled is answered 200 and not emitted again.
 *
 * Settings (config or secrets): `SIGNING_SECRET` (also SLACK_SIGNING_SECRET; `verify: false` to
 * run without one), `token` (also SLACK_BOT_TOKEN; without it replies are off), `apiBaseUrl`
 * (https://slack.com/api), `host`, `port` (also SLACK_WEBHOOK_PORT / PORT; 8787), `path` (also
 * SLACK_WEBHOOK_PATH; /), replies and retries as in common/. Socket Mode is not supported.
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from '../common/connector-error.ts';
import { baseUrlSetting, flagSetting, setting } from '../common/connector-settings.ts';
import { textAt } from '../common/payload-fields.ts';
import { RecentIds } from '../common/recent-ids.ts';
import { createReplyRelay } from '../common/reply-relay.ts';
import { retryPolicyFrom } from '../common/retry-policy.ts';
import { splitMessage } from '../common/split-message.ts';
import { errorResponse, jsonResponse, parseJsonObject, serveWebhook } from '../common/webhook-server.ts';
import { SLACK_API_BASE_URL, SLACK_MESSAGE_LIMIT, createSlackApi } from './slack-api.ts';
import { slackEvent } from './slack-event.ts';
import { checkSlackSignature } from './slack-signature.ts';

export default async function slack(ctx: ConnectorContext): Promise<void> {
  const signingSecret = setting(ctx, ['SIGNING_SECRET', 'SLACK_SIGNING_SECRET', 'signingSecret']);
  if (signingSecret === undefined && flagSetting(ctx, ['verify'], true, 'slack')) {
    throw new ConnectorError('E_CONNECTOR_CONFIG', 'slack connector: no signing secret to verify requests from Slack', 'set secrets.SIGNING_SECRET to the app\'s Signing Secret (or config.verify: false to accept unsigned requests)');
  }
  const token = setting(ctx, ['token', 'SLACK_BOT_TOKEN', 'BOT_TOKEN']);
  const replies = flagSetting(ctx, ['replies'], token !== undefined, 'slack');
  if (replies && token === undefined) throw new ConnectorError('E_CONNECTOR_CONFIG', 'slack connector: replies need the bot token', 'set secrets.token (or SLACK_BOT_TOKEN) to the xoxb- bot token');
  if (!replies) ctx.logger.warn({ connector: 'slack' }, 'slack replies are off (no bot token): events are emitted, replies are not posted');
  const api = createSlackApi({
    baseUrl: baseUrlSetting(ctx, ['apiBaseUrl', 'SLACK_API_BASE_URL'], SLACK_API_BASE_URL, 'slack'),
    token: token ?? '',
    policy: retryPolicyFrom(ctx, 'slack'),
    logger: ctx.logger,
    signal: ctx.signal,
  });
  const relay = createReplyRelay(ctx, { connector: 'slack', secrets: token ? [token] : [], replies });
  const seen = new RecentIds();

  await serveWebhook(ctx, {
    connector: 'slack',
    defaultPort: 8787,
    portNames: ['SLACK_WEBHOOK_PORT', 'PORT'],
    pathNames: ['SLACK_WEBHOOK_PATH'],
    async handle(request, rawBody) {
      if (signingSecret !== undefined) {
        const check = checkSlackSignature(signingSecret, rawBody, request.headers.get('x-slack-request-timestamp'), request.headers.get('x-slack-signature'));
        if (!check.ok) {
          ctx.logger.warn({ connector: 'slack', reason: check.reason }, 'slack signature check failed; request rejected');
          return errorResponse(401, 'E_CONNECTOR_SIGNATURE', check.reason);
        }
      }
      const envelope = parseJsonObject(rawBody);
      if (envelope instanceof Response) return envelope;
      if (envelope.type === 'url_verification') return jsonResponse(200, { challenge: textAt(envelope, 'challenge') ?? '' });
      const retry = request.headers.get('x-slack-retry-num');
      const eventId = textAt(envelope, 'event_id');
      if (eventId !== undefined && !seen.firstTime(eventId)) {
        ctx.logger.debug({ eventId, retry }, 'slack redelivered an event already handled; not emitted again');
        return jsonResponse(200, { ok: true, duplicate: true });
      }
      const event = envelope.type === 'event_callback' ? slackEvent(envelope) : undefined;
      if (!event) return jsonResponse(200, { ok: true, ignored: true });
      const channel = event.properties.channel ?? '';
      const threadTs = event.properties.thread_ts;
      relay.relay(event, async (text) => {
        for (const piece of splitMessage(text, SLACK_MESSAGE_LIMIT)) await api.postMessage(channel, piece, threadTs);
      });
      return jsonResponse(200, { ok: true });
    },
  });
  await relay.idle();
}
