/**
 * What an Idempotency-Key stands for: one request. A key sent again with another target or input is
 * a client's mistake (a reused or colliding key), and answering it with the first request's reply
 * would hand one conversation's answer to another; the digest lets the ledger tell (Stripe-style).
 */
import { GoondanError } from '../../shared/errors/index.ts';

/** The first 16 bytes of the input's SHA-256, hex: enough to tell two inputs apart, not to store them. */
export function inputDigest(input: string): string {
  return new Bun.CryptoHasher('sha256').update(input).digest('hex').slice(0, 32);
}

/** What the key was first used for, as the ledger or the cluster's claim keeps it. */
export interface KeyedRequest {
  agent: string;
  instanceKey: string;
  /** Absent in records written before digests were kept: then only the target is compared. */
  inputDigest?: string;
}

/** Throws IDEMPOTENCY_KEY_REUSED when `again` is not the request `first` was. */
export function assertSameRequest(key: string, first: KeyedRequest, again: { agent: string; instanceKey: string; input: string }): void {
  const differs: string[] = [];
  if (first.agent !== again.agent) differs.push(`agent ('${first.agent}' first, '${again.agent}' now)`);
  if (first.instanceKey !== again.instanceKey) differs.push(`instanceKey ('${first.instanceKey}' first, '${again.instanceKey}' now)`);
  if (first.inputDigest !== undefined && first.inputDigest !== inputDigest(again.input)) differs.push('input');
  if (differs.length === 0) return;
  throw new GoondanError('IDEMPOTENCY_KEY_REUSED', 'user', `the Idempotency-Key '${key}' was first used for another request: its ${differs.join(' and ')} ${differs.length === 1 ? 'differs' : 'differ'}`, {
    suggestion: 'send a new key for a new request (a UUID per logical request); a retry must repeat the first request exactly',
  });
}
