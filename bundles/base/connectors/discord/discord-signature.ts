/**
 * Discord signs every interaction with the application's Ed25519 key
 * (https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers):
 * `X-Signature-Ed25519` is the hex signature of `X-Signature-Timestamp + raw body`, checked with
 * the application's public key (hex, from the developer portal). A signature says nothing about
 * when it was sent, so a captured interaction could be posted again for ever: a timestamp more than
 * five minutes from now is refused, as Slack's window does (the connector also remembers
 * interaction ids, discord/index.ts).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { ConnectorError } from '../common/connector-error.ts';

export const REPLAY_WINDOW_SECONDS = 300;

export type DiscordCheck = { ok: true } | { ok: false; reason: string };
export type DiscordVerifier = (timestamp: string | null, rawBody: string, signatureHex: string | null, nowSeconds?: number) => DiscordCheck;

export function discordVerifier(publicKeyHex: string): DiscordVerifier {
  let key: KeyObject;
  try {
    if (!/^[0-9a-f]{64}$/i.test(publicKeyHex)) throw new Error('expected 64 hex characters');
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') }, format: 'jwk' });
  } catch (error) {
    throw new ConnectorError('E_CONNECTOR_CONFIG', `discord connector: publicKey is not an Ed25519 public key (${error instanceof Error ? error.message : String(error)})`, 'copy the application\'s PUBLIC KEY (hex) from the Discord developer portal');
  }
  return (timestamp, rawBody, signatureHex, nowSeconds = Date.now() / 1000) => {
    if (timestamp === null || signatureHex === null || !/^[0-9a-f]{128}$/i.test(signatureHex)) return { ok: false, reason: 'invalid request signature' };
    if (!verify(null, Buffer.from(timestamp + rawBody, 'utf8'), key, Buffer.from(signatureHex, 'hex'))) return { ok: false, reason: 'invalid request signature' };
    if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'malformed X-Signature-Timestamp' };
    if (Math.abs(nowSeconds - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return { ok: false, reason: 'timestamp outside the five-minute window (replay?)' };
    return { ok: true };
  };
}
