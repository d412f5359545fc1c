/**
 * `GET /v1/traces/{id}` takes a whole trace id or, as `goondan logs --trace` does, its first 8 or
 * more hex characters (as the CLI prints them), resolved among the latest traces when it is unique.
 */
import { errorResponse } from '../http/http-errors.ts';
import type { TraceSummary } from './runtime-event-log.ts';

export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;
export const TRACE_PREFIX_PATTERN = /^[0-9a-fA-F]{8,32}$/;

/** The one trace id among `recent` that starts with `prefix`, or the error response that says why not. */
export function traceOfPrefix(prefix: string, recent: readonly TraceSummary[]): { traceId: string } | { response: Response } {
  const wanted = prefix.toLowerCase();
  const matches = [...new Set(recent.map((trace) => trace.traceId).filter((id) => id.startsWith(wanted)))];
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return { traceId: only };
  if (matches.length === 0) {
    return {
      response: errorResponse(404, 'E_HTTP_UNKNOWN_TRACE', `no trace id starts with '${wanted}' among the ${recent.length} latest traces`, {
        suggestion: 'see GET /v1/traces for recent traces, or give the whole 32-character trace id',
      }),
    };
  }
  return {
    response: errorResponse(400, 'E_HTTP_AMBIGUOUS_TRACE', `'${wanted}' starts ${matches.length} trace ids: ${matches.join(', ')}`, {
      suggestion: 'give more characters of the trace id, or the whole 32-character id',
    }),
  };
}

/** A path segment that is neither a trace id nor a prefix of one. */
export function notATraceId(segment: string): Response {
  return errorResponse(404, 'E_HTTP_UNKNOWN_TRACE', `'${segment}' is not a trace id`, {
    suggestion: 'a trace id is 32 hex characters (a reply\'s traceId, GET /v1/traces); its first 8 or more also do',
  });
}
