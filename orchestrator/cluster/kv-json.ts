/** JSON the cluster reads and writes (KV values written one way, read back only when their schema accepts them; message bodies), and the compare-and-set refusal. */
import { JetStreamApiError } from '@nats-io/jetstream';
import type { Validator } from '../../shared/validation/compiled-validator.ts';

export function encodeJson(value: object): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

/** Undefined for bytes that are not JSON or not what `accepts` describes (another writer's junk). */
export function decodeJson<T>(bytes: Uint8Array, accepts: Validator<T>): T | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return accepts(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A NATS message's JSON body; undefined when it is not JSON (the caller's schema check then says what is wrong). */
export function messageJson(msg: { json(): unknown }): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}

/** JetStream's "wrong last sequence" (10071): a compare-and-set lost to another writer. */
export function isWrongRevision(error: unknown): boolean {
  return error instanceof JetStreamApiError ? error.code === WRONG_LAST_SEQUENCE : /wrong last sequence/i.test(String((error as Error)?.message));
}

const WRONG_LAST_SEQUENCE = 10071;
