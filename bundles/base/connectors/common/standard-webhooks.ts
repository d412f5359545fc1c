/**
 * Standard Webhooks verification (https://www.standardwebhooks.com, "Verifying webhook
 * authenticity"): `webhook-signature` lists space-separated `v1,<base64 HMAC-SHA256 of
 * "{webhook-id}.{webhook-timestamp}.{body}">`. The id and the time are signed, so a receiver can
 * refuse an old request and de-duplicate by id: a captured request can be replayed neither later
 * nor under another id.
 */
import { hmacSha256, safeEqual } from './signatures.ts';

/** The spec's tolerance, either way of the receiver's clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

export interface StandardWebhookHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string;
}

export type StandardWebhookVerdict =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; problem: 'signature' | 'timestamp'; message: string };

/** The request's Standard Webhooks headers; undefined without `webhook-signature` (another scheme, or unsigned). */
export function standardWebhookHeaders(headers: Headers): StandardWebhookHeaders | undefined {
  const signature = headers.get('webhook-signature');
  if (!signature) return undefined;
  return { id: headers.get('webhook-id') || undefined, timestamp: headers.get('webhook-timestamp') || undefined, signature };
}

/**
 * The HMAC key a secret stands for: `whsec_<base64>` (how Standard Webhooks senders hand secrets
 * out) is the decoded bytes, any other secret its UTF-8 bytes; undefined when the part after
 * `whsec_` is not base64.
 */
export function standardWebhookKey(secret: string): Uint8Array | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret, 'utf8');
  const encoded = secret.slice(SECRET_PREFIX.length);
  return BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
}

/** The `v1,<base64>` entry a Standard Webhooks sender puts in `webhook-signature`. */
function standardWebhookSignature(key: Uint8Array, id: string, timestamp: string, body: string): string {
  return `v1,${hmacSha256(key, `${id}.${timestamp}.${body}`).toString('base64')}`;
}

/**
 * Checks the signature first and the time after, so that a `timestamp` verdict is only ever given
 * to a genuinely signed request (a replay, or a sender whose clock is off).
 */
export function verifyStandardWebhook(key: Uint8Array, headers: StandardWebhookHeaders, body: string, nowSeconds: number): StandardWebhookVerdict {
  const { id, timestamp, signature } = headers;
  if (id === undefined || timestamp === undefined) {
    return { ok: false, problem: 'signature', message: 'webhook-signature needs webhook-id and webhook-timestamp beside it (all three Standard Webhooks headers)' };
  }
  const expected = standardWebhookSignature(key, id, timestamp, body);
  // More than one entry while the sender rotates its secret: any v1 entry may be the one that matches.
  if (!signature.split(' ').some((entry) => entry.startsWith('v1,') && safeEqual(entry, expected))) {
    return { ok: false, problem: 'signature', message: 'no v1 entry of webhook-signature matches HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"' };
  }
  const seconds = UNIX_SECONDS.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!(Math.abs(nowSeconds - seconds) <= TIMESTAMP_TOLERANCE_SECONDS)) {
    return {
      ok: false,
      problem: 'timestamp',
      message: `webhook-timestamp ${timestamp} is more than ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from this server's clock (${nowSeconds} unix seconds): a replayed request, or a sender or server clock that is off`,
    };
  }
  return { ok: true, id, timestamp: seconds };
}
