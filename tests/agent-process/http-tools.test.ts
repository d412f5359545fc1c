/**
 * HTTP tools without code (issue 17, seed 004 §5.1): a Tool whose exports declare `http` requests,
 * loaded through the config plane (header ValueSources resolved into the plan) and called through
 * the real engine against an HTTP server this test starts on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import { buildAgentPlan, buildSwarmPlan, loadBundle } from '../../shared/config/index.ts';
import { tempBundle, type TempBundle } from '../config/temp-bundle.ts';
import { errorOf, storedToolResults, trackEngines, userEvent } from './helpers/engine-fixture.ts';

const engines = trackEngines();
const TOKEN = 'Bearer s3cret-token';
let server: Server<undefined>;
/** Another origin (another port) that `/elsewhere` redirects to: it records what reached it. */
let other: Server<undefined>;
const reachedOther: Array<Record<string, string>> = [];
let bundle: TempBundle;
const seen: Array<{ method: string; path: string; search: string; headers: Record<string, string>; body: string }> = [];

beforeAll(() => {
  other = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      reachedOther.push(Object.fromEntries(request.headers));
      return Response.json({ landed: true });
    },
  });
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      seen.push({ method: request.method, path: url.pathname, search: url.search, headers: Object.fromEntries(request.headers), body: await request.text() });
      if (url.pathname.startsWith('/items/')) return Response.json({ id: decodeURIComponent(url.pathname.slice('/items/'.length)), q: url.searchParams.get('q') });
      if (url.pathname === '/items') return Response.json({ created: true }, { status: 201 });
      if (url.pathname === '/text') return new Response('plain words', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      if (url.pathname === '/redirect') return Response.redirect('http://10.1.2.3:9/inside', 302);
      if (url.pathname === '/elsewhere') return Response.redirect(`http://127.0.0.1:${other.port}/landing`, 302);
      return new Response(`no such thing: ${'x'.repeat(3000)}`, { status: 404, statusText: 'Not Found' });
    },
  });
  const model = (rules: string) => `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec:
  provider: mock
  model: m1
  options:
    rules:
${rules}
`;
  const call = (match: string, tool: string, args: string) => `      - match: "${match}"\n        toolCalls: [{ name: ${tool}, args: ${args} }]\n        then: "{{result}}"`;
  bundle = tempBundle({
    'goondan.yaml': `${model(
      [
        call('get', 'tracker__get', '{ id: "a b/c", q: "x&y=z" }'),
        call('create', 'tracker__create', '{ title: "Fix it", count: 3 }'),
        call('text', 'tracker__text', '{}'),
        call('missing', 'tracker__missing', '{}'),
        call('bounce', 'tracker__bounce', '{}'),
        call('away', 'tracker__away', '{}'),
      ].join('\n'),
    )}---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: tracker }
spec:
  config: { baseUrl: "http://127.0.0.1:${server.port}" }
  exports:
    - name: get
      description: Get one item.
      parameters: { type: object, properties: { id: { type: string }, q: { type: string } }, required: [id] }
      http:
        method: GET
        url: "{{config.baseUrl}}/items/{{args.id}}?q={{args.q}}"
        headers:
          Authorization: { valueFrom: { env: TRACKER_TOKEN } }
          X-Query: "q is {{args.q}}"
    - name: create
      description: Create an item.
      parameters: { type: object, properties: { title: { type: string }, count: { type: integer }, tag: { type: string } }, required: [title] }
      http:
        method: POST
        url: "{{config.baseUrl}}/items"
        body: { title: "{{args.title}}", count: "{{args.count}}", tag: "{{args.tag}}", label: "item: {{args.title}}" }
    - name: text
      description: Plain text.
      parameters: { type: object, properties: {} }
      http: { method: GET, url: "{{config.baseUrl}}/text" }
    - name: missing
      description: Always 404.
      parameters: { type: object, properties: {} }
      http: { method: GET, url: "{{config.baseUrl}}/nothing-here" }
    - name: bounce
      description: Redirects to a private address.
      parameters: { type: object, properties: {} }
      http: { method: GET, url: "{{config.baseUrl}}/redirect" }
    - name: away
      description: Redirects to another origin.
      parameters: { type: object, properties: {} }
      http:
        method: GET
        url: "{{config.baseUrl}}/elsewhere"
        headers:
          X-Tracker-Key: { valueFrom: { env: TRACKER_KEY } }
          X-Tracker-Session: "session {{config.baseUrl}}"
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: open }
spec:
  modelConfig: { modelRef: Model/m }
  tools:
    - ref: Tool/tracker
      config: { allow: ["127.0.0.1"] }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: closed }
spec:
  modelConfig: { modelRef: Model/m }
  tools: [Tool/tracker]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec: { entryAgent: Agent/open, agents: [Agent/open, Agent/closed] }
`,
  });
});

afterAll(() => {
  server.stop(true);
  other.stop(true);
  bundle.remove();
});

async function agent(name: 'open' | 'closed') {
  const loaded = await loadBundle(bundle.dir, { env: {} });
  expect(loaded.errors).toEqual([]);
  const plan = buildAgentPlan(loaded, 's', name, { TRACKER_TOKEN: TOKEN, TRACKER_KEY: 'k3y-secret' });
  return engines.start(plan, { swarm: buildSwarmPlan(loaded, 's') });
}

describe('an export declared as an HTTP request needs no entry module', () => {
  test('url and headers are rendered per call: arguments percent-encoded in the URL, credentials from a ValueSource', async () => {
    const h = await agent('open');
    const result = await h.engine.runTurn(userEvent('get'));
    expect(JSON.parse(result.responseText)).toEqual({ id: 'a b/c', q: 'x&y=z' });
    const request = seen.findLast((r) => r.path.startsWith('/items/'));
    expect(request?.path).toBe('/items/a%20b%2Fc');
    expect(request?.search).toBe('?q=x%26y%3Dz');
    expect(request?.headers.authorization).toBe(TOKEN);
    expect(request?.headers['x-query']).toBe('q is x&y=z');
    expect(JSON.stringify(h.logLines())).not.toContain('s3cret');
  });

  test('a redirect to another origin does not carry the declared headers (a secret may be under any name)', async () => {
    const h = await agent('open');
    const result = await h.engine.runTurn(userEvent('away'));
    expect(JSON.parse(result.responseText)).toEqual({ landed: true });
    expect(seen.findLast((r) => r.path === '/elsewhere')?.headers['x-tracker-key']).toBe('k3y-secret');
    const landed = reachedOther.at(-1);
    expect(landed?.['user-agent']).toBe('goondan-http-tool/0.1');
    expect(landed?.['x-tracker-key']).toBeUndefined();
    expect(landed?.['x-tracker-session']).toBeUndefined();
  });

  test('a JSON body keeps argument types, leaves out absent ones and renders text around placeholders', async () => {
    const h = await agent('open');
    const result = await h.engine.runTurn(userEvent('create'));
    expect(JSON.parse(result.responseText)).toEqual({ created: true });
    const request = seen.findLast((r) => r.path === '/items');
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ title: 'Fix it', count: 3, label: 'item: Fix it' });
  });

  test('a response that is not JSON becomes text', async () => {
    const h = await agent('open');
    expect((await h.engine.runTurn(userEvent('text'))).responseText).toBe('plain words');
  });

  test('a status ≥ 400 is E_TOOL_HTTP with the status and the body cut to 1,000 characters', async () => {
    const h = await agent('open');
    await h.engine.runTurn(userEvent('missing'));
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error).toMatchObject({ code: 'E_TOOL_HTTP' });
    const message = String(error?.message);
    expect(message).toContain(`GET http://127.0.0.1:${server.port}/nothing-here answered 404 Not Found: no such thing: xxx`);
    // The body is cut to 1,000 characters; the whole message then to the tool's errorMessageLimit (1000).
    expect(message.length).toBeLessThanOrEqual(1000);
    const failed = h.runtimeEvents.find((e) => e.type === 'tool.failed');
    expect(failed?.type === 'tool.failed' ? failed.error.details : undefined).toMatchObject({ status: 404 });
    expect(String(failed?.type === 'tool.failed' ? failed.error.details?.body : '')).toHaveLength(1000);
  });
});

describe('the SSRF rules of http-fetch apply unchanged', () => {
  test('without config.allow a loopback target is refused (E_HTTP_PRIVATE_TARGET) and nothing is sent', async () => {
    const before = seen.length;
    const h = await agent('closed');
    await h.engine.runTurn(userEvent('get'));
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error).toMatchObject({ code: 'E_HTTP_PRIVATE_TARGET' });
    expect(String(error?.suggestion)).toContain('config.allow');
    expect(seen.length).toBe(before);
  });

  test('a redirect to a private address outside the allow list is refused', async () => {
    const h = await agent('open');
    await h.engine.runTurn(userEvent('bounce'));
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error).toMatchObject({ code: 'E_HTTP_PRIVATE_TARGET' });
    expect(String(error?.message)).toContain('10.1.2.3');
  });
});
