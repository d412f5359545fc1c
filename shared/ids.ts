/**
 * Identifiers: nanoid for entity ids, crypto-random hex for trace context (SPEC.md §3.2). Random
 * bytes come from the global Web Crypto: node:crypto costs ~5 MB of RSS in every Bun process
 * (the bundled agent entry uses nanoid's Web Crypto build for the same reason).
 */
import { nanoid } from 'nanoid';

/** Short unique id with a readable prefix, e.g. `evt_V1StGXR8_Z5jdHi6B`. */
export function newId(prefix: string): string {
  return `${prefix}_${nanoid(16)}`;
}

/** 32 lowercase hex chars. */
export function newTraceId(): string {
  return randomHex(16);
}

/** 16 lowercase hex chars. */
export function newSpanId(): string {
  return randomHex(8);
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;
export const SPAN_ID_PATTERN = /^[0-9a-f]{16}$/;
