/** The one error shape of the HTTP API: `{error: {code, message, problems?}}` with a status. */
import type { JsonObject } from '../../shared/types/json.ts';

export function jsonResponse(status: number, body: JsonObject | JsonObject[], headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function errorResponse(status: number, code: string, message: string, extra: JsonObject = {}): Response {
  return jsonResponse(status, { error: { code, message, ...extra } });
}
