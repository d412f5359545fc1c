/**
 * `http-fetch__get` / `http-fetch__post`: one HTTP request with a timeout, a response size cap and
 * bounded redirects. Loopback, private, link-local (cloud metadata) and other non-public targets
 * are refused unless `config.allow` lists them (target-check.ts). A non-2xx status is a normal
 * result (`ok: false`) the model can read; errors are for requests that could not be made (bad URL
 * or scheme, refused target, DNS or network failure, timeout).
 */
import type { JsonObject, JsonValue, ToolContext, ToolHandler } from '../../../../shared/types/index.ts';
import { abortedError, BaseToolError, describeError } from '../tool-error.ts';
import { argsReader } from '../tool-input.ts';
import { checkScheme, fetchWithRedirects } from './fetch-with-redirects.ts';
import { parseAllowList } from './allow-list.ts';
import { readHttpFetchConfig } from './http-config.ts';
import { describeBody, readCapped } from './read-response.ts';
import { systemResolver } from './target-check.ts';

interface GetArgs {
  url: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxBytes?: number;
}

interface PostArgs extends GetArgs {
  body?: JsonValue;
  bodyString?: string;
}

const readGetArgs = argsReader<GetArgs>(import.meta.dir, 'get');
const readPostArgs = argsReader<PostArgs>(import.meta.dir, 'post');

/** Response headers worth showing a model; the rest is noise. */
const REPORTED_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'last-modified',
  'etag',
  'cache-control',
  'location',
  'retry-after',
  'www-authenticate',
  'link',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BaseToolError('E_HTTP_URL', `Not a valid absolute URL: ${JSON.stringify(raw)}`, { suggestion: 'Pass a full URL such as https://example.com/path.' });
  }
  checkScheme(url, 'The URL');
  return url;
}

async function request(ctx: ToolContext, method: 'GET' | 'POST', args: PostArgs): Promise<JsonObject> {
  const config = readHttpFetchConfig(ctx.config);
  const allow = parseAllowList(config.allow ?? []);
  const url = parseUrl(args.url);
  const headers = new Headers({ 'user-agent': 'goondan-http-fetch/0.1', accept: 'application/json, text/*;q=0.9, */*;q=0.8', ...config.headers });
  for (const [name, value] of Object.entries(args.headers ?? {})) headers.set(name, value);
  const body = requestBody(args, headers);
  const timeoutMs = args.timeoutMs ?? config.defaultTimeoutMs ?? 30_000;
  const maxBytes = args.maxBytes ?? config.defaultMaxBytes ?? 500_000;

  if (ctx.signal?.aborted) throw abortedError('The request');
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout.signal]) : timeout.signal;
  const started = performance.now();
  try {
    const { response, finalUrl, redirects } = await fetchWithRedirects({
      url,
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      maxRedirects: config.maxRedirects ?? 5,
      signal,
      targets: { allow, resolve: systemResolver },
      // The operator's headers are for the URL's origin (often an API key): not for where it redirects.
      originBoundHeaders: Object.keys(config.headers ?? {}),
    });
    const received = await readCapped(response, maxBytes);
    const contentType = response.headers.get('content-type') ?? '';
    const output: JsonObject = {
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      url: finalUrl.href,
      redirects,
      headers: reportedHeaders(response.headers),
      contentType,
      bytes: received.size,
      truncated: received.truncated,
      durationMs: Math.round(performance.now() - started),
      ...describeBody(contentType, received),
    };
    if (received.truncated) output.note ??= `Only the first ${maxBytes} bytes were read; raise maxBytes for more.`;
    return output;
  } catch (error) {
    if (BaseToolError.isInstance(error)) throw error;
    if (ctx.signal?.aborted) throw abortedError('The request');
    if (timeout.signal.aborted) {
      throw new BaseToolError('E_HTTP_TIMEOUT', `${method} ${url.href} did not complete within ${timeoutMs} ms.`, {
        suggestion: 'Retry later, or raise timeoutMs (up to 300000) for a slow server.',
        details: { url: url.href, timeoutMs },
      });
    }
    throw new BaseToolError('E_HTTP_NETWORK', `${method} ${url.href} failed: ${describeError(error)}`, {
      suggestion: 'Check the host name and port, and that the server is reachable from this machine.',
      details: { url: url.href },
    });
  } finally {
    clearTimeout(timer);
  }
}

/** POST body: JSON (`body`) or raw (`bodyString`), never both. Sets a JSON content type when unset. */
function requestBody(args: PostArgs, headers: Headers): string | undefined {
  if (args.body !== undefined && args.bodyString !== undefined) {
    throw new BaseToolError('E_HTTP_BODY_CONFLICT', 'Both body and bodyString were given; a request has one body.', {
      suggestion: 'Use body for JSON, or bodyString for any other content (set its content-type header).',
    });
  }
  if (args.bodyString !== undefined) return args.bodyString;
  if (args.body === undefined) return undefined;
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return JSON.stringify(args.body);
}

function reportedHeaders(headers: Headers): JsonObject {
  const picked: JsonObject = {};
  for (const name of REPORTED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) picked[name] = value;
  }
  return picked;
}

export const handlers: Record<string, ToolHandler> = {
  get: async (ctx, input) => request(ctx, 'GET', readGetArgs(input)),
  post: async (ctx, input) => request(ctx, 'POST', readPostArgs(input)),
};
