/**
 * The one error body of the HTTP API (ARCHITECTURE §7): `{error: {code, category, message,
 * suggestion?, details?}}` with a status — the same ErrorShape tool results and replies carry.
 */
import { type ErrorCategory, type ErrorShape, errorShape } from '../../shared/errors/index.ts';
import type { JsonObject } from '../../shared/types/json.ts';

export function jsonResponse(status: number, body: JsonObject | JsonObject[], headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * Errors a caller should simply send again shortly (a node of the cluster busy, restarting, cut
 * off or being taken over): their 503 says when, with Retry-After, on every route that answers one.
 */
const RETRY_SHORTLY: ReadonlySet<string> = new Set(['CLUSTER_UNAVAILABLE']);

/** What Retry-After asks for: about one lease renewal, within which a takeover or reconnect moves on. */
export const RETRY_AFTER_SECONDS = 1;

/** `{'retry-after': …}` for a 503 the caller should retry shortly; nothing for any other error. */
export function retryAfter(status: number, error: ErrorShape): Record<string, string> {
  return status === 503 && RETRY_SHORTLY.has(error.code) ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {};
}

export function errorBody(status: number, error: ErrorShape): Response {
  return jsonResponse(status, { error }, retryAfter(status, error));
}

/** Errors of the HTTP layer itself: 4xx are the caller's (`user`), 5xx ours (`system`). */
export function errorResponse(status: number, code: string, message: string, extra: { suggestion?: string; details?: JsonObject } = {}): Response {
  const category: ErrorCategory = status < 500 ? 'user' : 'system';
  return errorBody(status, errorShape(code, category, message, extra));
}
