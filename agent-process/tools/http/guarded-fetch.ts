/**
 * The one place where declared HTTP tools (Tool.spec.exports[].http) reach into http-fetch: they
 * send through its SSRF guard unchanged (issue 17: "the SSRF rules of http-fetch apply") — every
 * hop's resolved address checked against the private ranges and the agent's `config.allow`, the
 * request pinned to the checked address, redirects re-checked — and read bodies the same way.
 */
import type { HttpMethod } from '../../../shared/types/resources.ts';
import { parseAllowList } from '../../../bundles/base/tools/http-fetch/allow-list.ts';
import { checkScheme, fetchWithRedirects, type FetchOutcome } from '../../../bundles/base/tools/http-fetch/fetch-with-redirects.ts';
import { describeBody, readCapped, type BodyBytes } from '../../../bundles/base/tools/http-fetch/read-response.ts';
import { systemResolver } from '../../../bundles/base/tools/http-fetch/target-check.ts';

export { checkScheme, describeBody, readCapped, type BodyBytes };

export interface GuardedRequest {
  url: URL;
  method: HttpMethod;
  headers: Headers;
  body?: string;
  signal: AbortSignal;
  /** `config.allow` of the agent's tool ref: private hosts / CIDRs this agent may reach. */
  allow: readonly string[];
  /** Headers not forwarded when a redirect leaves the URL's origin. */
  originBoundHeaders: readonly string[];
}

const MAX_REDIRECTS = 5;

export function guardedFetch(request: GuardedRequest): Promise<FetchOutcome> {
  checkScheme(request.url, 'The URL');
  return fetchWithRedirects({
    url: request.url,
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    maxRedirects: MAX_REDIRECTS,
    signal: request.signal,
    targets: { allow: parseAllowList(request.allow), resolve: systemResolver },
    originBoundHeaders: request.originBoundHeaders,
  });
}
