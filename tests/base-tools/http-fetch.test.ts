import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { handlers } from '../../bundles/base/tools/http-fetch/index.ts';
import type { JsonObject } from '../../shared/types/index.ts';
import { asObject, callTool, toolError, type TestToolContext, toolContexts } from './tool-context.ts';

/** A real HTTP server on 127.0.0.1 with one route per behaviour under test. */
function startServer(): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      if (path === '/json') return Response.json({ items: [{ name: 'a' }], ok: true }, { headers: { etag: '"v1"', 'x-internal': 'noise' } });
      if (path === '/text') return new Response('plain text body', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      if (path === '/latin1') return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), { headers: { 'content-type': 'text/plain; charset=iso-8859-1' } });
      if (path === '/binary') return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]), { headers: { 'content-type': 'image/png' } });
      if (path === '/bad-json') return new Response('{"a": 1,', { headers: { 'content-type': 'application/json' } });
      if (path === '/big') return new Response('z'.repeat(2_000_000), { headers: { 'content-type': 'text/plain' } });
      if (path === '/big-json') return Response.json({ data: 'y'.repeat(10_000) });
      if (path === '/missing') return Response.json({ error: 'not here' }, { status: 404, statusText: 'Not Found' });
      if (path === '/slow') {
        await Bun.sleep(5000);
        return new Response('too late');
      }
      if (path === '/slow-body') {
        return new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode('first chunk'));
              await Bun.sleep(5000);
              controller.close();
            },
          }),
          { headers: { 'content-type': 'text/plain' } },
        );
      }
      const hop = /^\/redirect\/(\d+)$/.exec(path);
      if (hop) {
        const left = Number(hop[1]);
        return left === 0 ? Response.json({ arrived: true }) : Response.redirect(`/redirect/${left - 1}`, 302);
      }
      if (path === '/loop') return Response.redirect('/loop', 302);
      if (path === '/to-ftp') return new Response(null, { status: 302, headers: { location: 'ftp://example.com/file' } });
      if (path === '/see-other') return Response.redirect('/echo', 303);
      if (path === '/to-other-origin') return Response.redirect(`${url.searchParams.get('target')}/echo`, 307);
      if (path === '/echo') {
        return Response.json({
          method: request.method,
          contentType: request.headers.get('content-type'),
          authorization: request.headers.get('authorization'),
          custom: request.headers.get('x-custom'),
          headers: Object.fromEntries(request.headers),
          body: await request.text(),
        });
      }
      return new Response('no route', { status: 500 });
    },
  });
}

let server: ReturnType<typeof Bun.serve>;
let otherOrigin: ReturnType<typeof Bun.serve>;
let base = '';
beforeAll(() => {
  server = startServer();
  otherOrigin = startServer();
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  void server.stop(true);
  void otherOrigin.stop(true);
});

const newContext = toolContexts();
/** The test servers listen on loopback, which http-fetch refuses unless the agent's config allows it. */
const setup = (config: JsonObject = {}) => newContext({ allow: ['127.0.0.1'], ...config });

const get = async (t: TestToolContext, input: unknown): Promise<JsonObject> => asObject(await callTool(handlers, 'get', t.ctx, input));
const post = async (t: TestToolContext, input: unknown): Promise<JsonObject> => asObject(await callTool(handlers, 'post', t.ctx, input));

describe('http-fetch output depends on the content type', () => {
  test('JSON is parsed; status, url and a few useful headers are reported', async () => {
    const out = await get(setup(), { url: `${base}/json` });
    expect(out).toMatchObject({ ok: true, status: 200, statusText: 'OK', url: `${base}/json`, redirects: 0, truncated: false, json: { items: [{ name: 'a' }], ok: true } });
    expect(out.headers).toMatchObject({ 'content-type': expect.stringContaining('application/json'), etag: '"v1"' });
    expect(JSON.stringify(out.headers)).not.toContain('x-internal');
    expect(out.text).toBeUndefined();
  });

  test('text comes back as text, decoded with the declared charset', async () => {
    const t = setup();
    expect(await get(t, { url: `${base}/text` })).toMatchObject({ text: 'plain text body', bytes: 15 });
    expect((await get(t, { url: `${base}/latin1` })).text).toBe('café');
  });

  test('binary content is described, not dumped', async () => {
    const out = await get(setup(), { url: `${base}/binary` });
    expect(out).toMatchObject({ binary: true, contentType: 'image/png', bytes: 8 });
    expect(out.text).toBeUndefined();
  });

  test('JSON that does not parse comes back as text with the parse error', async () => {
    const out = await get(setup(), { url: `${base}/bad-json` });
    expect(out.text).toBe('{"a": 1,');
    expect(typeof out.jsonError).toBe('string');
  });

  test('a non-2xx status is a normal result with ok: false', async () => {
    expect(await get(setup(), { url: `${base}/missing` })).toMatchObject({ ok: false, status: 404, statusText: 'Not Found', json: { error: 'not here' } });
  });
});

describe('http-fetch size caps', () => {
  test('the body is cut at maxBytes with truncated', async () => {
    const out = await get(setup(), { url: `${base}/big`, maxBytes: 1000 });
    expect(out).toMatchObject({ truncated: true, bytes: 1000 });
    expect(String(out.text)).toHaveLength(1000);
    expect(String(out.note)).toContain('raise maxBytes');
  });

  test('the default cap is 500000 bytes', async () => {
    expect(await get(setup(), { url: `${base}/big` })).toMatchObject({ truncated: true, bytes: 500_000 });
  });

  test('a cut JSON body is returned as text with a note instead of failing to parse', async () => {
    const out = await get(setup(), { url: `${base}/big-json`, maxBytes: 100 });
    expect(out).toMatchObject({ truncated: true, bytes: 100 });
    expect(out.json).toBeUndefined();
    expect(String(out.note)).toContain('maxBytes');
  });
});

describe('http-fetch redirects are followed, bounded and checked', () => {
  test('up to 5 redirects are followed and the final URL is reported', async () => {
    expect(await get(setup(), { url: `${base}/redirect/5` })).toMatchObject({ url: `${base}/redirect/0`, redirects: 5, json: { arrived: true } });
  });

  test('more than 5 (or a loop) is E_HTTP_TOO_MANY_REDIRECTS', async () => {
    const t = setup();
    expect((await toolError(get(t, { url: `${base}/redirect/6` }))).code).toBe('E_HTTP_TOO_MANY_REDIRECTS');
    expect((await toolError(get(t, { url: `${base}/loop` }))).code).toBe('E_HTTP_TOO_MANY_REDIRECTS');
  });

  test('config.maxRedirects lowers the bound', async () => {
    expect((await toolError(get(setup({ maxRedirects: 1 }), { url: `${base}/redirect/2` }))).code).toBe('E_HTTP_TOO_MANY_REDIRECTS');
  });

  test('a redirect to a non-http scheme is E_HTTP_SCHEME', async () => {
    expect((await toolError(get(setup(), { url: `${base}/to-ftp` }))).code).toBe('E_HTTP_SCHEME');
  });

  test('303 after POST continues as GET without the body', async () => {
    const out = await post(setup(), { url: `${base}/see-other`, body: { a: 1 } });
    expect(out.json).toMatchObject({ method: 'GET', body: '', contentType: null });
  });

  test('credentials are not forwarded to another origin', async () => {
    const target = `http://127.0.0.1:${otherOrigin.port}`;
    const out = await get(setup(), { url: `${base}/to-other-origin?target=${encodeURIComponent(target)}`, headers: { authorization: 'Bearer secret', 'x-custom': 'kept' } });
    expect(out.url).toBe(`${target}/echo`);
    expect(out.json).toMatchObject({ authorization: null, custom: 'kept' });
  });

  test('headers the operator configured (config.headers) and common API-key headers stay with the first origin', async () => {
    const target = `http://127.0.0.1:${otherOrigin.port}`;
    const t = setup({ headers: { 'X-Operator-Key': 'op-secret' } });
    const headers = { 'private-token': 'glpat-secret', 'X-Api-Key': 'key-secret', 'x-custom': 'kept' };
    const away = asObject((await get(t, { url: `${base}/to-other-origin?target=${encodeURIComponent(target)}`, headers })).json ?? null);
    expect(away.headers).toMatchObject({ 'x-custom': 'kept' });
    expect(JSON.stringify(away.headers)).not.toContain('secret');
    // The same origin is the one they were configured for: kept there.
    const home = asObject((await get(t, { url: `${base}/to-other-origin?target=${encodeURIComponent(base)}`, headers })).json ?? null);
    expect(home.headers).toMatchObject({ 'x-operator-key': 'op-secret', 'private-token': 'glpat-secret', 'x-api-key': 'key-secret' });
  });
});

describe('http-fetch timeouts and cancellation', () => {
  test('a slow server hits timeoutMs: E_HTTP_TIMEOUT', async () => {
    // The server answers after 5 s; only the 300 ms timeout produces this error.
    const error = await toolError(get(setup(), { url: `${base}/slow`, timeoutMs: 300 }));
    expect(error.code).toBe('E_HTTP_TIMEOUT');
    expect(error.message).toContain('300 ms');
  });

  test('the timeout also covers a body that stalls', async () => {
    expect((await toolError(get(setup(), { url: `${base}/slow-body`, timeoutMs: 300 }))).code).toBe('E_HTTP_TIMEOUT');
  });

  test('config.defaultTimeoutMs applies when the call gives none', async () => {
    expect((await toolError(get(setup({ defaultTimeoutMs: 300 }), { url: `${base}/slow` }))).code).toBe('E_HTTP_TIMEOUT');
  });

  test('an aborted ctx.signal cancels the request: E_TOOL_ABORTED', async () => {
    const t = setup();
    const call = get(t, { url: `${base}/slow`, timeoutMs: 60_000 });
    await Bun.sleep(100);
    t.controller.abort();
    expect((await toolError(call)).code).toBe('E_TOOL_ABORTED');
  });
});

describe('http-fetch__post bodies', () => {
  test('body is sent as JSON with a JSON content type', async () => {
    const out = await post(setup(), { url: `${base}/echo`, body: { hello: ['world'] } });
    expect(out.json).toMatchObject({ method: 'POST', contentType: 'application/json', body: '{"hello":["world"]}' });
  });

  test('bodyString is sent raw with the caller\'s content type; config headers are sent too', async () => {
    const out = await post(setup({ headers: { 'x-custom': 'from-config' } }), { url: `${base}/echo`, bodyString: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(out.json).toMatchObject({ body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded', custom: 'from-config' });
  });

  test('body and bodyString together is E_HTTP_BODY_CONFLICT', async () => {
    expect((await toolError(post(setup(), { url: `${base}/echo`, body: {}, bodyString: 'x' }))).code).toBe('E_HTTP_BODY_CONFLICT');
  });
});

describe('http-fetch refuses what it cannot or must not fetch', () => {
  test.each(['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/plain,hi'])('%s → E_HTTP_SCHEME', async (url) => {
    const error = await toolError(get(setup(), { url }));
    expect(error.code).toBe('E_HTTP_SCHEME');
    expect(error.suggestion).toBeDefined();
  });

  test('a relative or malformed URL is E_HTTP_URL', async () => {
    const t = setup();
    expect((await toolError(get(t, { url: '/just/a/path' }))).code).toBe('E_HTTP_URL');
    expect((await toolError(get(t, { url: 'http://' }))).code).toBe('E_HTTP_URL');
  });

  test('a closed port is E_HTTP_NETWORK', async () => {
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const port = probe.port;
    await probe.stop(true);
    expect((await toolError(get(setup(), { url: `http://127.0.0.1:${port}/` }))).code).toBe('E_HTTP_NETWORK');
  });

  test.each([{ url: 5 }, {}, { url: 'http://x', headers: { a: 1 } }, { url: 'http://x', timeoutMs: 0 }, { url: 'http://x', method: 'PUT' }])('%j → E_TOOL_INVALID_ARGS', async (input) => {
    expect((await toolError(get(setup(), input))).code).toBe('E_TOOL_INVALID_ARGS');
  });
});
