/**
 * fetch with redirects followed by hand, so that every hop is checked (http/https only, and its
 * target address by `checkTarget`), the count is bounded, and the final URL is known. Each hop is
 * sent to the address that was checked. Like browsers: 303 (and 301/302 after POST) continue as
 * GET without a body; credentials are not forwarded to another origin — neither the standard
 * credential headers nor any header the operator configured for the tool (`originBoundHeaders`).
 */
import { BaseToolError, systemErrorCode } from '../tool-error.ts';
import type { IpAddress } from './ip-address.ts';
import { checkTarget, pinnedRequest, type TargetCheck } from './target-check.ts';

export interface FetchRequest {
  url: URL;
  /** http-fetch sends GET and POST; declared HTTP tools (Tool.spec.exports[].http) also PUT, PATCH, DELETE. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Headers;
  body?: string;
  maxRedirects: number;
  signal: AbortSignal;
  /** Allow-list and resolver for the target check of every hop (the signal is `signal`). */
  targets: Omit<TargetCheck, 'signal'>;
  /**
   * Headers sent to the first origin only: the ones the operator configured (http-fetch's
   * config.headers, a declared tool's http.headers), which may hold a secret under any name.
   */
  originBoundHeaders?: readonly string[];
}

export interface FetchOutcome {
  response: Response;
  finalUrl: URL;
  redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Never sent to another origin: the standard credential headers and the common API-key ones. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'api-key', 'private-token', 'x-auth-token', 'x-access-token'];

/** Refuses anything but http(s) with `E_HTTP_SCHEME`. */
export function checkScheme(url: URL, what: string): void {
  if (url.protocol === 'http:' || url.protocol === 'https:') return;
  throw new BaseToolError('E_HTTP_SCHEME', `${what} uses the scheme "${url.protocol}"; only http: and https: are allowed.`, {
    suggestion: 'Use an http:// or https:// URL; read local files with file-system__read.',
    details: { url: url.href },
  });
}

/** Connection failures after which nothing was sent, so the next address may be tried. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** Sends the hop to each checked address in turn until one accepts the connection. */
async function fetchFirstReachable(url: URL, addresses: IpAddress[], init: RequestInit & { headers: Headers }): Promise<Response> {
  let lastError: unknown;
  for (const address of addresses) {
    const pinned = pinnedRequest(url, address);
    const headers = new Headers(init.headers);
    headers.set('host', pinned.hostHeader);
    try {
      return await fetch(pinned.url, { ...init, headers, ...(pinned.serverName !== undefined ? { tls: { serverName: pinned.serverName } } : {}) });
    } catch (error) {
      const code = systemErrorCode(error);
      if (code === undefined || !UNREACHABLE.has(code)) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

export async function fetchWithRedirects(request: FetchRequest): Promise<FetchOutcome> {
  let url = request.url;
  let method = request.method;
  let body = request.body;
  const headers = new Headers(request.headers);
  const check: TargetCheck = { ...request.targets, signal: request.signal };
  let previous: URL | undefined;
  for (let redirects = 0; ; redirects += 1) {
    const addresses = await checkTarget(url, check, previous ? `the redirect from ${previous.href} to` : method);
    const response = await fetchFirstReachable(url, addresses, { method, headers, body: body ?? null, redirect: 'manual', signal: request.signal });
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
    if (next.origin !== url.origin) for (const name of [...CREDENTIAL_HEADERS, ...(request.originBoundHeaders ?? [])]) headers.delete(name);
    previous = url;
    url = next;
  }
}
