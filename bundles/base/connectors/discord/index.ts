/**
 * `discord` connector: a Discord application's Interactions Endpoint URL. Every request must be
 * signed with the application's Ed25519 key less than five minutes ago (401 and nothing emitted
 * otherwise), and an interaction id already handled is not a second turn; PING is answered
 * with PONG; a slash command or component press is answered at once with a deferred response
 * (Discord shows "thinking…") and becomes a turn on `discord:<channel_id>`; the agent's reply
 * then replaces the deferred message, with follow-ups beyond 2000 characters.
 *
 * Settings (config or secrets): `publicKey` (also PUBLIC_KEY / DISCORD_PUBLIC_KEY; required),
 * `apiBaseUrl` (https://discord.com/api/v10), `host`, `port` (8789), `path` (/), replies and
 * retries as in common/. No bot token is needed: the interaction token authorises the answer.
 * The Gateway (websocket) is not supported.
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { baseUrlSetting, requiredSetting } from '../common/connector-settings.ts';
import { RecentIds } from '../common/recent-ids.ts';
import { createReplyRelay } from '../common/reply-relay.ts';
import { retryPolicyFrom } from '../common/retry-policy.ts';
import { splitMessage } from '../common/split-message.ts';
import { errorResponse, jsonResponse, parseJsonObject, serveWebhook } from '../common/webhook-server.ts';
import { DISCORD_API_BASE_URL, DISCORD_MESSAGE_LIMIT, createDiscordApi } from './discord-api.ts';
import { readInteraction } from './discord-interaction.ts';
import { discordVerifier } from './discord-signature.ts';

/** Interaction response types (https://discord.com/developers/docs/interactions/receiving-and-responding). */
const PONG = 1;
const DEFERRED_CHANNEL_MESSAGE = 5;

export default async function discord(ctx: ConnectorContext): Promise<void> {
  const verify = discordVerifier(requiredSetting(ctx, ['publicKey', 'PUBLIC_KEY', 'DISCORD_PUBLIC_KEY'], 'discord', "the application's public key"));
  const api = createDiscordApi({
    baseUrl: baseUrlSetting(ctx, ['apiBaseUrl', 'DISCORD_API_BASE_URL'], DISCORD_API_BASE_URL, 'discord'),
    policy: retryPolicyFrom(ctx, 'discord'),
    logger: ctx.logger,
    signal: ctx.signal,
  });
  // Interaction tokens are cut out of errors where they are used (discord-api.ts).
  const relay = createReplyRelay(ctx, { connector: 'discord', secrets: [] });
  const seen = new RecentIds();

  await serveWebhook(ctx, {
    connector: 'discord',
    defaultPort: 8789,
    async handle(request, rawBody) {
      const check = verify(request.headers.get('x-signature-timestamp'), rawBody, request.headers.get('x-signature-ed25519'));
      if (!check.ok) {
        ctx.logger.warn({ connector: 'discord', reason: check.reason }, 'discord signature check failed; request rejected');
        return errorResponse(401, 'E_CONNECTOR_SIGNATURE', check.reason);
      }
      const body = parseJsonObject(rawBody);
      if (body instanceof Response) return body;
      const interaction = readInteraction(body);
      if (interaction.kind === 'ping') return jsonResponse(200, { type: PONG });
      if (interaction.kind === 'unsupported') return errorResponse(400, 'E_CONNECTOR_UNSUPPORTED', interaction.reason);
      const { applicationId, token } = interaction;
      // Discord does not redeliver an interaction: the same id again is a replay of a signed request.
      const interactionId = interaction.event.properties.interaction_id;
      if (interactionId !== undefined && !seen.firstTime(interactionId)) {
        ctx.logger.warn({ connector: 'discord', interactionId }, 'discord interaction already handled; not emitted again');
        return errorResponse(409, 'E_CONNECTOR_DUPLICATE', `interaction ${interactionId} was already handled`);
      }
      // The daemon remembers the id too (24 h), past a restart of this connector.
      const event = interactionId !== undefined ? { ...interaction.event, idempotencyKey: `discord-interaction:${interactionId}` } : interaction.event;
      relay.relay(event, async (text) => {
        const [first = '', ...rest] = splitMessage(text, DISCORD_MESSAGE_LIMIT);
        await api.editOriginal(applicationId, token, first);
        for (const piece of rest) await api.followUp(applicationId, token, piece);
      });
      return jsonResponse(200, { type: DEFERRED_CHANNEL_MESSAGE });
    },
  });
  await relay.idle();
}
