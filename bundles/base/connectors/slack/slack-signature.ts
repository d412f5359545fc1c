/**
 * Slack's v0 request signature (https://api.slack.com/authentication/verifying-requests-from-slack):
 * `X-Slack-Signature = "v0=" + HMAC-SHA256(signing secret, "v0:" + timestamp + ":" + raw body)`,
 * and a timestamp older (or newer) than five minutes is a replay.
 */
import { hmacSha256Hex, safeEqual } from '../common/signatures.ts';

export const REPLAY_WINDOW_SECONDS = 300;

export type SlackSignatureCheck = { ok: true } | { ok: false; reason: string };

export function checkSlackSignature(secret: string, rawBody: string, timestamp: string | null, signature: string | null, nowSeconds = Date.now() / 1000): SlackSignatureCheck {
  if (timestamp === null || signature === null) return { ok: false, reason: 'missing X-Slack-Signature or X-Slack-Request-Timestamp' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'malformed X-Slack-Request-Timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return { ok: false, reason: 'timestamp outside the five-minute window (replay?)' };
  const expected = `v0=${hmacSha256Hex(secret, `v0:${timestamp}:${rawBody}`)}`;
  return safeEqual(signature, expected) ? { ok: true } : { ok: false, reason: 'signature mismatch' };
}
