/**
 * `github` connector: a repository (or organisation / app) webhook. Every delivery must carry
 * `X-Hub-Signature-256 = sha256=HMAC-SHA256(secret, raw body)` (401 and nothing emitted
 * otherwise); JSON and form-encoded (`payload=`) deliveries are read; `ping` is answered 200;
 * a new issue, pull request or comment becomes a turn on `github:<owner/repo>#<number>` and the
 * agent's reply is posted as a comment there. A delivery id (`X-GitHub-Delivery`) already
 * handled — GitHub redelivers — is not emitted again, nor is an event whose signed body names a
 * comment / issue / pull request already handled (the delivery id is not signed, so a captured
 * delivery could otherwise be replayed under a new one); an `X-GitHub-Event` (also unsigned) that
 * does not match the body's shape is 400.
 *
 * Settings (config or secrets): `WEBHOOK_SECRET` (also SIGNING_SECRET / GITHUB_WEBHOOK_SECRET;
 * `verify: false` to run without one), `token` (also GITHUB_TOKEN; without it replies are off),
 * `botLogin` (the account the token acts as: its comments are ignored), `apiBaseUrl`
 * (https://api.github.com), `host`, `port` (8790), `path` (/), replies and retries as in common/.
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from '../common/connector-error.ts';
import { baseUrlSetting, flagSetting, setting } from '../common/connector-settings.ts';
import { RecentIds } from '../common/recent-ids.ts';
import { createReplyRelay } from '../common/reply-relay.ts';
import { retryPolicyFrom } from '../common/retry-policy.ts';
import { hmacSha256Hex, safeEqual } from '../common/signatures.ts';
import { splitMessage } from '../common/split-message.ts';
import { errorResponse, jsonResponse, parseJsonObject, serveWebhook } from '../common/webhook-server.ts';
import { GITHUB_API_BASE_URL, GITHUB_COMMENT_LIMIT, createGithubApi } from './github-api.ts';
import { githubDelivery } from './github-event.ts';

export default async function github(ctx: ConnectorContext): Promise<void> {
  const secret = setting(ctx, ['WEBHOOK_SECRET', 'SIGNING_SECRET', 'GITHUB_WEBHOOK_SECRET', 'signingSecret']);
  if (secret === undefined && flagSetting(ctx, ['verify'], true, 'github')) {
    throw new ConnectorError('E_CONNECTOR_CONFIG', 'github connector: no webhook secret to verify deliveries', 'set secrets.WEBHOOK_SECRET to the webhook\'s secret (or config.verify: false to accept unsigned deliveries)');
  }
  const token = setting(ctx, ['token', 'GITHUB_TOKEN']);
  const replies = flagSetting(ctx, ['replies'], token !== undefined, 'github');
  if (replies && token === undefined) throw new ConnectorError('E_CONNECTOR_CONFIG', 'github connector: replies need a token', 'set secrets.token (or GITHUB_TOKEN) to a token that may comment on issues');
  if (!replies) ctx.logger.warn({ connector: 'github' }, 'github replies are off (no token): events are emitted, comments are not posted');
  const botLogin = setting(ctx, ['botLogin']);
  const api = createGithubApi({
    baseUrl: baseUrlSetting(ctx, ['apiBaseUrl', 'GITHUB_API_BASE_URL'], GITHUB_API_BASE_URL, 'github'),
    token: token ?? '',
    policy: retryPolicyFrom(ctx, 'github'),
    logger: ctx.logger,
    signal: ctx.signal,
  });
  const relay = createReplyRelay(ctx, { connector: 'github', secrets: token ? [token] : [], replies });
  const seen = new RecentIds();

  await serveWebhook(ctx, {
    connector: 'github',
    defaultPort: 8790,
    async handle(request, rawBody) {
      if (secret !== undefined) {
        const given = request.headers.get('x-hub-signature-256') ?? '';
        if (!safeEqual(given, `sha256=${hmacSha256Hex(secret, rawBody)}`)) {
          ctx.logger.warn({ connector: 'github' }, 'github signature check failed; delivery rejected');
          return errorResponse(401, 'E_CONNECTOR_SIGNATURE', 'missing or wrong X-Hub-Signature-256');
        }
      }
      const githubEvent = request.headers.get('x-github-event') ?? '';
      if (githubEvent === 'ping') return jsonResponse(200, { ok: true, pong: true });
      // GitHub sends JSON, or `payload=<json>` when the webhook's content type is form-encoded.
      const form = (request.headers.get('content-type') ?? '').includes('x-www-form-urlencoded');
      const body = parseJsonObject(form ? (new URLSearchParams(rawBody).get('payload') ?? '') : rawBody);
      if (body instanceof Response) return body;
      const deliveryId = request.headers.get('x-github-delivery') ?? undefined;
      if (deliveryId !== undefined && !seen.firstTime(deliveryId)) return jsonResponse(200, { ok: true, duplicate: true });
      const delivery = githubDelivery(githubEvent, deliveryId, body, botLogin);
      if (delivery.kind === 'mismatch') {
        ctx.logger.warn({ connector: 'github', githubEvent, deliveryId: deliveryId ?? null }, 'github event header does not match the signed body; delivery rejected');
        return errorResponse(400, 'E_CONNECTOR_BAD_BODY', delivery.reason);
      }
      if (delivery.kind === 'ignored') {
        ctx.logger.debug({ connector: 'github', githubEvent, deliveryId: deliveryId ?? null, reason: delivery.reason }, 'github delivery ignored');
        return jsonResponse(200, { ok: true, ignored: delivery.reason });
      }
      const { repo, number, event, key } = delivery;
      if (!seen.firstTime(key)) {
        ctx.logger.debug({ connector: 'github', key, deliveryId: deliveryId ?? null }, 'github event already handled; not emitted again');
        return jsonResponse(200, { ok: true, duplicate: true });
      }
      relay.relay(event, async (text) => {
        for (const piece of splitMessage(text, GITHUB_COMMENT_LIMIT)) await api.createComment(repo, number, piece);
      });
      return jsonResponse(200, { ok: true });
    },
  });
  await relay.idle();
}
