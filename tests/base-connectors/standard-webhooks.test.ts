/**
 * Standard Webhooks verification (https://www.standardwebhooks.com): the spec's published test
 * vector, `whsec_` secrets, several signatures at once, and the five-minute window either way.
 * Signatures are made here with node:crypto, independently of the module under test.
 */
import { describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import {
  type StandardWebhookHeaders,
  TIMESTAMP_TOLERANCE_SECONDS,
  standardWebhookHeaders,
  standardWebhookKey,
  verifyStandardWebhook,
} from '../../bundles/base/connectors/common/standard-webhooks.ts';

// The test vector the Standard Webhooks reference libraries share.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT = Number(VECTOR.timestamp);

function keyOf(secret: string): Uint8Array {
  const key = standardWebhookKey(secret);
  if (key === undefined) throw new Error(`no key for ${secret}`);
  return key;
}
const vectorHeaders = (overrides: Partial<StandardWebhookHeaders> = {}): StandardWebhookHeaders => ({ id: VECTOR.id, timestamp: VECTOR.timestamp, signature: VECTOR.signature, ...overrides });
const v1 = (key: string | Uint8Array, id: string, timestamp: string, body: string) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

describe('signatures are HMAC-SHA256 of "{id}.{timestamp}.{body}"', () => {
  test('the spec’s test vector verifies, and the verdict carries the signed id', () => {
    expect(verifyStandardWebhook(keyOf(VECTOR.secret), vectorHeaders(), VECTOR.body, AT)).toEqual({ ok: true, id: VECTOR.id, timestamp: AT });
  });

  test('a changed id, timestamp or body no longer matches', () => {
    const key = keyOf(VECTOR.secret);
    for (const [headers, body] of [
      [vectorHeaders({ id: 'msg_other' }), VECTOR.body],
      [vectorHeaders({ timestamp: String(AT + 1) }), VECTOR.body],
      [vectorHeaders(), '{"test": 2432232315}'],
    ] as const) {
      expect(verifyStandardWebhook(key, headers, body, AT)).toMatchObject({ ok: false, problem: 'signature' });
    }
  });

  test('any one v1 entry of a space-separated list may match (secret rotation); other versions never do', () => {
    const key = keyOf(VECTOR.secret);
    const other = v1('another key', VECTOR.id, VECTOR.timestamp, VECTOR.body);
    expect(verifyStandardWebhook(key, vectorHeaders({ signature: `${other} ${VECTOR.signature}` }), VECTOR.body, AT).ok).toBe(true);
    expect(verifyStandardWebhook(key, vectorHeaders({ signature: VECTOR.signature.replace('v1,', 'v2,') }), VECTOR.body, AT).ok).toBe(false);
    expect(verifyStandardWebhook(key, vectorHeaders({ signature: VECTOR.signature.slice(3) }), VECTOR.body, AT).ok).toBe(false);
  });

  test('a signature without webhook-id or webhook-timestamp is refused as a signature problem', () => {
    const key = keyOf(VECTOR.secret);
    expect(verifyStandardWebhook(key, vectorHeaders({ id: undefined }), VECTOR.body, AT)).toMatchObject({ ok: false, problem: 'signature' });
    expect(verifyStandardWebhook(key, vectorHeaders({ timestamp: undefined }), VECTOR.body, AT)).toMatchObject({ ok: false, problem: 'signature' });
  });
});

describe('secrets', () => {
  test('whsec_<base64> stands for the decoded key bytes', () => {
    expect(Buffer.from(keyOf(VECTOR.secret))).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
  });

  test('any other secret is its UTF-8 bytes', () => {
    const key = keyOf('plain shared sécret');
    const signature = v1('plain shared sécret', 'msg_1', VECTOR.timestamp, 'hello');
    expect(verifyStandardWebhook(key, { id: 'msg_1', timestamp: VECTOR.timestamp, signature }, 'hello', AT).ok).toBe(true);
  });

  test('whsec_ followed by something that is not base64 has no key', () => {
    expect(standardWebhookKey('whsec_not base64!')).toBeUndefined();
    expect(standardWebhookKey('whsec_')).toBeUndefined();
  });
});

describe('the timestamp must be within five minutes of now, either way', () => {
  const key = keyOf(VECTOR.secret);
  test('exactly five minutes off is accepted, one second more is refused with the window named', () => {
    expect(TIMESTAMP_TOLERANCE_SECONDS).toBe(300);
    expect(verifyStandardWebhook(key, vectorHeaders(), VECTOR.body, AT + 300).ok).toBe(true);
    expect(verifyStandardWebhook(key, vectorHeaders(), VECTOR.body, AT - 300).ok).toBe(true);
    const late = verifyStandardWebhook(key, vectorHeaders(), VECTOR.body, AT + 301);
    expect(late).toMatchObject({ ok: false, problem: 'timestamp' });
    expect(late.ok ? '' : late.message).toContain('5 minutes');
    expect(verifyStandardWebhook(key, vectorHeaders(), VECTOR.body, AT - 301)).toMatchObject({ ok: false, problem: 'timestamp' });
  });

  test('a correctly signed timestamp that is not unix seconds is refused', () => {
    const timestamp = '2021-02-25T15:02:10Z';
    const signature = v1(key, VECTOR.id, timestamp, VECTOR.body);
    expect(verifyStandardWebhook(key, { id: VECTOR.id, timestamp, signature }, VECTOR.body, AT)).toMatchObject({ ok: false, problem: 'timestamp' });
  });
});

describe('which requests are Standard Webhooks requests', () => {
  test('only those with a webhook-signature header; a bare webhook-id is a legacy delivery id', () => {
    expect(standardWebhookHeaders(new Headers({ 'webhook-id': 'std-1' }))).toBeUndefined();
    expect(standardWebhookHeaders(new Headers({ 'webhook-signature': VECTOR.signature, 'webhook-id': VECTOR.id }))).toEqual({ id: VECTOR.id, timestamp: undefined, signature: VECTOR.signature });
  });
});
