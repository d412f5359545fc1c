/**
 * http-fetch refuses private targets (issue 9, SSRF): through the real tool against a real server
 * on 127.0.0.1 that would answer every request, so a refusal that did not happen shows as a 200.
 * Only loopback is ever connected to; other private ranges are checked without a connection in
 * http-fetch-address-rules.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { handlers } from '../../bundles/base/tools/http-fetch/index.ts';
import { fetchWithRedirects } from '../../bundles/base/tools/http-fetch/fetch-with-redirects.ts';
import { parseAllowList } from '../../bundles/base/tools/http-fetch/allow-list.ts';
import type { JsonObject } from '../../shared/types/index.ts';
import { asObject, callTool, toolError, toolContexts } from './tool-context.ts';

let server: ReturnType<typeof Bun.serve>;
let hits: Array<{ path: string; host: string | null }> = [];
let port = 0;
beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      hits.push({ path: url.pathname, host: request.headers.get('host') });
      if (url.pathname === '/redirect') return new Response(null, { status: 302, headers: { location: url.searchParams.get('to') ?? '/' } });
      return Response.json({ secret: 'internal', host: request.headers.get('host') });
    },
  });
  port = Number(server.port);
});
afterAll(() => void server.stop(true));

const setup = toolContexts();
const get = async (config: JsonObject, url: string): Promise<JsonObject> => asObject(await callTool(handlers, 'get', setup(config).ctx, { url }));

describe('loopback is refused by default, however it is spelt', () => {
  const spellings = () => [
    `http://127.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://017700000001:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://localhost:${port}/`,
    `http://LocalHost:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::]:${port}/`,
  ];

  test('every spelling is E_HTTP_PRIVATE_TARGET naming the host, the address and the rule; nothing is sent', async () => {
    hits = [];
    for (const url of spellings()) {
      const error = await toolError(get({}, url));
      expect({ url, code: error.code }).toEqual({ url, code: 'E_HTTP_PRIVATE_TARGET' });
      expect(error.message).toMatch(/\((127\.0\.0\.0\/8|0\.0\.0\.0\/8|::1\/128|::\/128)\)/);
      expect(error.suggestion).toContain('config.allow');
    }
    expect(hits).toEqual([]);
  });

  test('a host name that resolves to loopback is refused with the resolved address in the message', async () => {
    const error = await toolError(get({}, `http://localhost:${port}/x`));
    expect(error.message).toContain('the host "localhost" resolves to 127.0.0.1, which is a loopback address (127.0.0.0/8)');
    expect(error.details).toMatchObject({ host: 'localhost', address: '127.0.0.1', rule: '127.0.0.0/8' });
  });

  test('an IPv4-mapped IPv6 address is judged by the IPv4 address it carries', async () => {
    const error = await toolError(get({}, `http://[::ffff:127.0.0.1]:${port}/`));
    expect(error.message).toContain('carries the IPv4 address 127.0.0.1');
  });
});

describe('config.allow opens exactly what it lists', () => {
  test('an address, a CIDR block or a host name lets the request through', async () => {
    for (const allow of [['127.0.0.1'], ['127.0.0.0/8'], ['localhost']]) {
      const out = await get({ allow }, `http://localhost:${port}/data`);
      expect({ allow, status: out.status }).toEqual({ allow, status: 200 });
    }
  });

  test('an allowed IPv4 block also covers its IPv4-mapped IPv6 spelling', async () => {
    // Connecting to ::ffff:127.0.0.1 reaches 127.0.0.1 on a dual-stack socket; the check treats it alike.
    const error = await toolError(get({ allow: ['10.0.0.0/8'] }, `http://[::ffff:127.0.0.1]:${port}/`));
    expect(error.code).toBe('E_HTTP_PRIVATE_TARGET');
  });

  test('allowing a host name does not allow other names or addresses', async () => {
    expect((await toolError(get({ allow: ['intranet.example'] }, `http://127.0.0.1:${port}/`))).code).toBe('E_HTTP_PRIVATE_TARGET');
    expect((await toolError(get({ allow: ['*.localhost'] }, `http://localhost:${port}/`))).code).toBe('E_HTTP_PRIVATE_TARGET');
  });

  test('a malformed entry is E_TOOL_CONFIG naming it', async () => {
    const error = await toolError(get({ allow: ['10.0.0.0/99'] }, `http://127.0.0.1:${port}/`));
    expect(error.code).toBe('E_TOOL_CONFIG');
    expect(error.message).toContain('"10.0.0.0/99"');
  });
});

describe('every redirect hop is checked again', () => {
  test('a redirect from an allowed host to a private one is refused and the private one gets nothing', async () => {
    hits = [];
    const error = await toolError(get({ allow: ['localhost'] }, `http://localhost:${port}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${port}/internal`)}`));
    expect(error.code).toBe('E_HTTP_PRIVATE_TARGET');
    expect(error.message).toContain(`Refused the redirect from http://localhost:${port}/redirect`);
    expect(error.message).toContain(`to http://127.0.0.1:${port}/internal`);
    expect(hits.map((hit) => hit.path)).toEqual(['/redirect']);
  });

  test('a redirect to another spelling of loopback is refused too', async () => {
    const error = await toolError(get({ allow: ['localhost'] }, `http://localhost:${port}/redirect?to=${encodeURIComponent(`http://2130706433:${port}/`)}`));
    expect(error.code).toBe('E_HTTP_PRIVATE_TARGET');
  });
});

describe('the request goes to the address that was checked (no DNS rebinding)', () => {
  test('the name is resolved once per hop by the check, and fetch connects to that address with the original Host', async () => {
    // "pinned.test" exists in no DNS: only a connection to the checked address can succeed.
    const lookups: string[] = [];
    const resolve = async (host: string) => {
      lookups.push(host);
      return [{ address: '127.0.0.1' }];
    };
    hits = [];
    const { response, finalUrl } = await fetchWithRedirects({
      url: new URL(`http://pinned.test:${port}/redirect?to=/landed`),
      method: 'GET',
      headers: new Headers(),
      maxRedirects: 5,
      signal: AbortSignal.timeout(10_000),
      targets: { allow: parseAllowList(['127.0.0.1']), resolve },
    });
    expect(response.status).toBe(200);
    expect(finalUrl.href).toBe(`http://pinned.test:${port}/landed`);
    expect(lookups).toEqual(['pinned.test', 'pinned.test']);
    expect(hits).toEqual([
      { path: '/redirect', host: `pinned.test:${port}` },
      { path: '/landed', host: `pinned.test:${port}` },
    ]);
  });

  test('a name whose answers include one private address is refused even if another is public', async () => {
    const resolve = async () => [{ address: '127.0.0.1' }, { address: '::1' }];
    hits = [];
    const call = fetchWithRedirects({
      url: new URL(`http://mixed.test:${port}/`),
      method: 'GET',
      headers: new Headers(),
      maxRedirects: 0,
      signal: AbortSignal.timeout(10_000),
      targets: { allow: parseAllowList(['127.0.0.1']), resolve },
    });
    expect((await toolError(call)).message).toContain('resolves to ::1');
    expect(hits).toEqual([]);
  });

  test('when the first checked address refuses the connection, the next one is tried', async () => {
    const resolve = async () => [{ address: '::1' }, { address: '127.0.0.1' }];
    const { response } = await fetchWithRedirects({
      url: new URL(`http://two.test:${port}/`),
      method: 'GET',
      headers: new Headers(),
      maxRedirects: 0,
      signal: AbortSignal.timeout(10_000),
      targets: { allow: parseAllowList(['127.0.0.1', '::1']), resolve },
    });
    expect(response.status).toBe(200);
  });
});
