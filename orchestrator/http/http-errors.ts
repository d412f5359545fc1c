/**
 * The one error body of the HTTP API (ARCHITECTURE §7): `{error: {code, category, message,
 * suggestion?, details?}}` with a status — the same ErrorShape tool results and replies carry.
 */
import { type ErrorCategory, type ErrorShape, errorShape } from '../../shared/errors/index.ts';
import type { JsonObject } from '../../shared/types/json.ts';

export function jsonResponse(status: number, body: JsonObject | JsonObject[], headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function errorBody(status: number, error: ErrorShape): Response {
  return jsonResponse(status, { error });
}

/** Errors of the HTTP layer itself: 4xx are the caller's (`user`), 5xx ours (`system`). */
export function errorResponse(status: number, code: string, message: string, extra: { suggestion?: string; details?: JsonObject } = {}): Response {
  const category: ErrorCategory = status < 500 ? 'user' : 'system';
  return errorBody(status, errorShape(code, category, message, extra));
}
