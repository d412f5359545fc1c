/** Identifiers: nanoid for entity ids, crypto-random hex for trace context (SPEC.md §3.2). */
import { randomBytes } from 'node:crypto';
import { nanoid } from 'nanoid';

/** Short unique id with a readable prefix, e.g. `evt_V1StGXR8_Z5jdHi6B`. */
export function newId(prefix: string): string {
  return `${prefix}_${nanoid(16)}`;
}

/** 32 lowercase hex chars. */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** 16 lowercase hex chars. */
export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}

export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;
export const SPAN_ID_PATTERN = /^[0-9a-f]{16}$/;
