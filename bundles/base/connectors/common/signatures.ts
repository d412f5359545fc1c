/** Signature checks shared by the webhook-style connectors: HMAC-SHA256 and constant-time compare. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of `data` keyed by a string's UTF-8 bytes or by raw key bytes. */
export function hmacSha256(key: string | Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function hmacSha256Hex(secret: string, data: string): string {
  return hmacSha256(secret, data).toString('hex');
}

/** Compares two strings in constant time (for equal lengths); unequal lengths are simply false. */
export function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
