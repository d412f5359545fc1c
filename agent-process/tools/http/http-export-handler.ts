/**
 * The handler of an export declared as an HTTP request (issue 17, seed 004 §5.1): render the
 * request for the call, send it through http-fetch's SSRF guard (with the agent's `config.allow`),
 * and turn the response into the result — parsed JSON when the content type says JSON, else text;
 * a status ≥ 400 is `E_TOOL_HTTP` with the status and the body cut to 1,000 characters.
 */
import { GoondanError, errorMessageOf } from '../../../shared/errors/index.ts';
import type { HttpRequestPlan } from '../../../shared/types/bundle.ts';
import type { JsonObject, JsonValue } from '../../../shared/types/json.ts';
import type { ToolContext, ToolHandler } from '../../../shared/types/tools.ts';
import { type BodyBytes, describeBody, guardedFetch, readCapped } from './guarded-fetch.ts';
import { renderRequest } from './request-templates.ts';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 500_000;
/** issue 17: the body of a failed response is cut to this many characters. */
export const ERROR_BODY_CHARS = 1000;

export function httpExportHandler(toolName: string, http: HttpRequestPlan): ToolHandler {
  return async (ctx, input) => {
    const request = renderRequest(toolName, http, { args: input, config: ctx.config });
    const timeoutMs = http.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    const what = `${http.method} ${request.url.href}`;
    let outcome;
    let body: BodyBytes;
    try {
      // Every declared header stays with the declared origin: the plan no longer says which came
      // from a ValueSource, and a template one may carry {{config.token}}.
      const originBoundHeaders = Object.keys(http.headers ?? {});
      outcome = await guardedFetch({ ...request, method: http.method, signal, allow: allowList(toolName, ctx), originBoundHeaders });
      body = await readCapped(outcome.response, MAX_BODY_BYTES);
    } catch (error) {
      if (GoondanError.isInstance(error) || hasCode(error)) throw error;
      if (timeout.aborted && !ctx.signal?.aborted) {
        throw new GoondanError('E_TOOL_HTTP_TIMEOUT', 'tool', `${what} did not answer within ${timeoutMs} ms`, { suggestion: 'Retry later; the server is slow or unreachable.' });
      }
      throw new GoondanError('E_TOOL_HTTP_NETWORK', 'tool', `${what} failed: ${errorMessageOf(error)}`, {
        suggestion: 'Check that the server is running and reachable from this machine.',
        details: { url: request.url.href },
      });
    }
    const { response } = outcome;
    const contentType = response.headers.get('content-type') ?? '';
    if (response.status >= 400) {
      const text = new TextDecoder().decode(body.bytes).slice(0, ERROR_BODY_CHARS);
      throw new GoondanError('E_TOOL_HTTP', 'tool', `${what} answered ${response.status} ${response.statusText}: ${text}`, {
        suggestion: response.status >= 500 ? 'The server failed; retry later.' : 'Check the arguments against the tool description; the server refused the request.',
        details: { status: response.status, url: outcome.finalUrl.href, body: text },
      });
    }
    return resultOf(response, contentType, body);
  };
}

function resultOf(response: Response, contentType: string, body: BodyBytes): JsonValue {
  if (body.size === 0) return `HTTP ${response.status} ${response.statusText} (empty body)`;
  const described = describeBody(contentType, body);
  if (described.json !== undefined) return described.json;
  if (typeof described.text === 'string') {
    const notes = [described.note, described.jsonError === undefined ? undefined : `not valid JSON: ${String(described.jsonError)}`].filter((n) => n !== undefined);
    return notes.length > 0 ? `${described.text}\n[${notes.join('; ')}]` : described.text;
  }
  const binary: JsonObject = { binary: true, contentType, bytes: body.size };
  return binary;
}

/** `config.allow` (hosts, `*.domain`, addresses, CIDR blocks), as for http-fetch. */
function allowList(toolName: string, ctx: ToolContext): string[] {
  const allow = ctx.config.allow;
  if (allow === undefined) return [];
  if (Array.isArray(allow) && allow.every((entry) => typeof entry === 'string')) return allow;
  throw new GoondanError('E_TOOL_CONFIG', 'tool', `${toolName}: config.allow must be a list of host names, *.domain wildcards, addresses or CIDR blocks`, {
    suggestion: 'Tell the operator to fix config.allow on the agent\'s tool ref, e.g. allow: ["127.0.0.1", "10.0.0.0/8"].',
  });
}

/** Errors of http-fetch's guard (E_HTTP_PRIVATE_TARGET, E_HTTP_DNS, …) carry a code: keep them. */
function hasCode(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && /^E_[A-Z_]+$/.test(error.code);
}
