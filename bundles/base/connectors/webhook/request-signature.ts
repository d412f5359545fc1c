/**
 * Which signature a webhook request must carry (the `signature` setting) and the check itself:
 * Standard Webhooks (common/standard-webhooks.ts: id and time are signed, so a captured request is
 * refused once five minutes old and de-duplicated by its id before that) or the legacy
 * `sha256=<hex HMAC-SHA256 of the body>` in X-Goondan-Signature / X-Hub-Signature-256, which has
 * no timestamp: a captured request stays valid, under any delivery id. `any` accepts both.
 */
import { ConnectorError } from '../common/connector-error.ts';
import { type SettingsSource, setting } from '../common/connector-settings.ts';
import { hmacSha256Hex, safeEqual } from '../common/signatures.ts';
import { standardWebhookHeaders, standardWebhookKey, verifyStandardWebhook } from '../common/standard-webhooks.ts';

export const SIGNATURE_SCHEMES = ['any', 'standard-webhooks', 'hmac-sha256'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** `signedId`: the Standard Webhooks `webhook-id`, covered by the signature. */
export type RequestSignature = { ok: true; signedId?: string } | { ok: false; code: 'E_WEBHOOK_SIGNATURE' | 'E_WEBHOOK_TIMESTAMP'; message: string };
export type RequestVerifier = (headers: Headers, rawBody: string) => RequestSignature;

function isScheme(value: string): value is SignatureScheme {
  return SIGNATURE_SCHEMES.some((scheme) => scheme === value);
}

export function signatureSchemeSetting(source: SettingsSource): SignatureScheme {
  const text = setting(source, ['signature'])?.toLowerCase();
  if (text === undefined) return 'any';
  if (isScheme(text)) return text;
  throw new ConnectorError(
    'E_CONNECTOR_CONFIG',
    `webhook connector: signature is "${text}"`,
    `use one of ${SIGNATURE_SCHEMES.join(', ')} (standard-webhooks accepts only requests with a signed timestamp, which closes replays)`,
  );
}

function legacySignatureMatches(secret: string, rawBody: string, header: string | null): boolean {
  if (!header) return false;
  const given = header.startsWith('sha256=') ? header.slice(7) : header;
  return safeEqual(given, hmacSha256Hex(secret, rawBody));
}

const LEGACY_HOW = 'X-Goondan-Signature: sha256=<hex HMAC-SHA256 of the raw body>';
const STANDARD_HOW = 'Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature';

/** Built once at start, so that a `whsec_` secret that is not base64 fails the start rather than every request. */
export function requestVerifier(secret: string, scheme: SignatureScheme): RequestVerifier {
  const key = scheme === 'hmac-sha256' ? undefined : standardWebhookKey(secret);
  if (scheme !== 'hmac-sha256' && key === undefined) {
    throw new ConnectorError(
      'E_CONNECTOR_CONFIG',
      'webhook connector: WEBHOOK_SECRET starts with whsec_ but the rest is not base64',
      'copy the secret exactly as the Standard Webhooks sender shows it (whsec_<base64>), or set signature: hmac-sha256 if it is a legacy secret',
    );
  }
  return (headers, rawBody) => {
    const standard = key === undefined ? undefined : standardWebhookHeaders(headers);
    if (standard !== undefined && key !== undefined) {
      const verdict = verifyStandardWebhook(key, standard, rawBody, Math.floor(Date.now() / 1000));
      if (verdict.ok) return { ok: true, signedId: verdict.id };
      return { ok: false, code: verdict.problem === 'timestamp' ? 'E_WEBHOOK_TIMESTAMP' : 'E_WEBHOOK_SIGNATURE', message: verdict.message };
    }
    if (scheme === 'standard-webhooks') {
      return { ok: false, code: 'E_WEBHOOK_SIGNATURE', message: `this endpoint takes only Standard Webhooks signatures (signature: standard-webhooks): send the ${STANDARD_HOW}` };
    }
    if (legacySignatureMatches(secret, rawBody, headers.get('x-goondan-signature') ?? headers.get('x-hub-signature-256'))) return { ok: true };
    return {
      ok: false,
      code: 'E_WEBHOOK_SIGNATURE',
      message: scheme === 'any' ? `missing or wrong signature: send the ${STANDARD_HOW}, or ${LEGACY_HOW}` : `missing or wrong signature: send ${LEGACY_HOW}`,
    };
  };
}
