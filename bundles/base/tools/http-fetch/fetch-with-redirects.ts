/**
 * fetch with redirects followed by hand, so that every hop is checked (http/https only), the count
 * is bounded, and the final URL is known. Like browsers: 303 (and 301/302 after POST) continue as
 * GET without a body; credentials are not forwarded to another origin.
 */
import { BaseToolError } from '../tool-error.ts';

export interface FetchRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Headers;
  body?: string;
  maxRedirects: number;
  signal: AbortSignal;
}

export interface FetchOutcome {
  response: Response;
  finalUrl: URL;
  redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** Refuses anything but http(s) with `E_HTTP_SCHEME`. */
export function checkScheme(url: URL, what: string): void {
  if (url.protocol === 'http:' || url.protocol === 'https:') return;
  throw new BaseToolError('E_HTTP_SCHEME', `${what} uses the scheme "${url.protocol}"; only http: and https: are allowed.`, {
    suggestion: 'Use an http:// or https:// URL; read local files with file-system__read.',
    details: { url: url.href },
  });
}

export async function fetchWithRedirects(request: FetchRequest): Promise<FetchOutcome> {
  let url = request.url;
  let method = request.method;
  let body = request.body;
  const headers = new Headers(request.headers);
  for (let redirects = 0; ; redirects += 1) {
    const response = await fetch(url, { method, headers, body: body ?? null, redirect: 'manual', signal: request.signal });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, finalUrl: url, redirects };
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= request.maxRedirects) {
      throw new BaseToolError('E_HTTP_TOO_MANY_REDIRECTS', `Gave up after ${request.maxRedirects} redirects (last hop: ${url.href} → ${location}).`, {
        suggestion: 'Request the final URL directly, or check for a redirect loop.',
        details: { url: request.url.href, lastUrl: url.href },
      });
    }
    const next = new URL(location, url);
    checkScheme(next, `A redirect from ${url.href}`);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
      headers.delete('content-length');
    }
    if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    url = next;
  }
}
