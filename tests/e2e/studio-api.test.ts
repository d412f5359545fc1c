/**
 * The studio's server side against a real daemon (issue 13): the page is served without a
 * credential and forbids other origins; `goondan studio` prints a one-time login link; the code or
 * the token becomes an HttpOnly SameSite=Strict session cookie that authorizes the API, and
 * changes made with it need the studio header (CSRF); the read-only routes the views use.
 */
import { describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readApiToken } from '../../orchestrator/http/api-credential.ts';
import { studioRoutes } from '../../orchestrator/studio/studio-routes.ts';
import { StudioSessions } from '../../orchestrator/studio/studio-sessions.ts';
import { type Daemon, GOONDAN_BIN, REPO_ROOT, sharedDaemon } from './daemon-harness.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'bundles/demo'));

async function goondanStudio(d: Daemon, args: string[] = [], env: Record<string, string> = {}) {
  const proc = Bun.spawn([GOONDAN_BIN, 'studio', '--state-root', d.stateRoot, ...args], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout: stdout.trim(), stderr, code };
}

async function login(d: Daemon, body: Record<string, string>): Promise<Response> {
  return fetch(`${d.url}/studio/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Signs in with a fresh login code; the session cookie as a browser would send it back. */
async function sessionCookie(d: Daemon): Promise<string> {
  const { stdout } = await goondanStudio(d);
  const code = new URL(stdout).hash.replace('#code=', '');
  const response = await login(d, { code });
  expect(response.status).toBe(204);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('the page', () => {
  test('GET /studio and its assets load without a credential, and allow only this origin', async () => {
    const page = await fetch(`${daemon().url}/studio`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('/studio/studio.js');
    const script = await fetch(`${daemon().url}/studio/studio.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect((await script.text()).length).toBeGreaterThan(1000);
    // The stylesheet is inline, allowed by its hash and nothing else inline.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const hash = new Bun.CryptoHasher('sha256').update(style).digest('base64');
    expect(page.headers.get('content-security-policy')).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(html).not.toMatch(/https?:\/\//);
    expect((await fetch(`${daemon().url}/studio/nope.js`)).status).toBe(404);
  });

  test('without built assets the page says how to build them', async () => {
    const routes = studioRoutes({ sessions: new StudioSessions(), acceptsToken: () => false, onMalformedBody: () => {}, distDir: join(tmpdir(), 'goondan-no-such-dist') });
    const page = routes.find((r) => r.pattern.test('/studio'));
    const response = await page?.handle(new Request('http://127.0.0.1/studio'), ['/studio']);
    expect(response?.status).toBe(503);
    expect(JSON.stringify(await response?.json())).toContain('E_STUDIO_NOT_BUILT');
  });

  test('the API itself still needs a credential', async () => {
    expect((await fetch(`${daemon().url}/v1/processes`)).status).toBe(401);
    expect((await fetch(`${daemon().url}/v1/swarm`)).status).toBe(401);
    expect((await fetch(`${daemon().url}/v1/studio/login-codes`, { method: 'POST' })).status).toBe(401);
  });
});

describe('signing in', () => {
  test('goondan studio prints a link to /studio carrying a one-time code', async () => {
    const { stdout, stderr, code } = await goondanStudio(daemon());
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${daemon().url}/studio#code=[A-Za-z0-9_-]{40,}$`));
    expect(stderr).toContain('works once');
  });

  test('the code becomes an HttpOnly, SameSite=Strict session cookie that authorizes the API, once', async () => {
    const { stdout } = await goondanStudio(daemon());
    const code = new URL(stdout).hash.replace('#code=', '');
    const first = await login(daemon(), { code });
    expect(first.status).toBe(204);
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^goondan_studio_\d+=[A-Za-z0-9_-]+;/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    const cookie = setCookie.split(';')[0] ?? '';
    const processes = await fetch(`${daemon().url}/v1/processes`, { headers: { cookie } });
    expect(processes.status).toBe(200);
    const again = await login(daemon(), { code });
    expect(again.status).toBe(401);
    expect(JSON.stringify(await again.json())).toContain('E_STUDIO_BAD_LOGIN_CODE');
  });

  test('the API token typed into the page also opens a session; a wrong one does not', async () => {
    const token = readApiToken(daemon().stateRoot) ?? '';
    const good = await login(daemon(), { token });
    expect(good.status).toBe(204);
    expect(good.headers.get('set-cookie')).toContain('HttpOnly');
    const bad = await login(daemon(), { token: 'not-the-token' });
    expect(bad.status).toBe(401);
    expect(JSON.stringify(await bad.json())).toContain('E_STUDIO_BAD_TOKEN');
    expect((await login(daemon(), { password: 'x' })).status).toBe(400);
  });

  test('a forged cookie is refused', async () => {
    const port = new URL(daemon().url).port;
    expect((await fetch(`${daemon().url}/v1/processes`, { headers: { cookie: `goondan_studio_${port}=forged` } })).status).toBe(401);
  });

  test('the event stream accepts the session cookie (EventSource cannot send a bearer token)', async () => {
    const cookie = await sessionCookie(daemon());
    const controller = new AbortController();
    const response = await fetch(`${daemon().url}/v1/events/stream`, { headers: { cookie }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });

  test('a change made with the cookie needs the studio header (CSRF); with it, it goes through', async () => {
    const cookie = await sessionCookie(daemon());
    const body = JSON.stringify({ input: 'hello', instanceKey: 'csrf' });
    const forged = await fetch(`${daemon().url}/v1/events`, { method: 'POST', headers: { cookie, 'content-type': 'text/plain' }, body });
    expect(forged.status).toBe(403);
    expect(JSON.stringify(await forged.json())).toContain('E_HTTP_CSRF');
    const fromPage = await fetch(`${daemon().url}/v1/events`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'x-goondan-studio': '1' }, body });
    expect(fromPage.status).toBe(200);
    expect(((await fromPage.json()) as { output: string }).output).toContain("you said 'hello'");
  });
});

describe('goondan studio --open', () => {
  test('hands the link to xdg-open', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'goondan-xdg-'));
    try {
      const seen = join(bin, 'seen');
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${seen}\n`);
      chmodSync(join(bin, 'xdg-open'), 0o755);
      const { stdout, stderr, code } = await goondanStudio(daemon(), ['--open'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
      expect(code).toBe(0);
      expect(readFileSync(seen, 'utf8').trim()).toBe(stdout);
      expect(stderr).not.toContain('could not open');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('without a browser opener it still prints the link and says to open it by hand', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'goondan-noxdg-'));
    try {
      writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 3\n');
      chmodSync(join(bin, 'xdg-open'), 0o755);
      const failing = await goondanStudio(daemon(), ['--open'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
      expect(failing.code).toBe(0);
      expect(failing.stdout).toContain('/studio#code=');
      expect(failing.stderr).toContain('could not open a browser (xdg-open exited with 3)');
      // Only what the bin/goondan launcher needs: no xdg-open at all.
      const bare = join(bin, 'bare');
      mkdirSync(bare);
      for (const tool of ['readlink', 'dirname']) symlinkSync(Bun.which(tool) ?? `/usr/bin/${tool}`, join(bare, tool));
      const missing = await goondanStudio(daemon(), ['--open'], { PATH: bare });
      expect(missing.code).toBe(0);
      expect(missing.stdout).toContain('/studio#code=');
      expect(missing.stderr).toContain('could not open a browser');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('read-only routes for the views', () => {
  let traceId = '';
  const get = async (path: string) => {
    const response = await daemon().api(path);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const haiku = async () => {
    if (traceId !== '') return;
    const { status, body } = await daemon().send({ input: 'Please write a haiku about autumn and have it reviewed.', instanceKey: 'routes' });
    expect(status).toBe(200);
    traceId = String(body.traceId);
  };

  test('GET /v1/swarm: the agents, the entry agent and the calls seen between them', async () => {
    await haiku();
    const { body } = await get('/v1/swarm');
    expect(body).toMatchObject({ name: 'demo', entryAgent: 'writer', agents: ['writer', 'reviewer'], connections: [] });
    expect(body.calls).toEqual([expect.objectContaining({ from: 'writer', to: 'reviewer' })]);
  });

  test('GET /v1/instances: instance keys with their agents', async () => {
    await haiku();
    const { body } = await get('/v1/instances');
    const routes = (body.instances as Array<{ instanceKey: string; agents: Array<{ agent: string }> }>).find((i) => i.instanceKey === 'routes');
    expect(routes?.agents.map((a) => a.agent).sort()).toEqual(['reviewer', 'writer']);
  });

  test("GET /v1/instances/{key}/messages: an agent's conversation, tool calls and results included", async () => {
    await haiku();
    const writer = await get('/v1/instances/routes/messages');
    expect(writer.body.agent).toBe('writer');
    const text = JSON.stringify(writer.body.messages);
    expect(text).toContain('"toolName":"agents__request"');
    expect(text).toContain("the river as the leaves' courier");
    const reviewer = await get('/v1/instances/routes/messages?agent=reviewer');
    expect(JSON.stringify(reviewer.body.messages)).toContain('"eventType":"agent.request"');
    const missing = await get('/v1/instances/nobody/messages');
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain('E_HTTP_UNKNOWN_INSTANCE');
  });

  test('GET /v1/traces and /v1/traces/{id}: one trace across the writer and the reviewer', async () => {
    await haiku();
    const list = await get('/v1/traces');
    expect((list.body.traces as Array<{ traceId: string }>).some((t) => t.traceId === traceId)).toBe(true);
    const trace = await get(`/v1/traces/${traceId}`);
    const events = trace.body.events as Array<{ agentName: string; type: string }>;
    expect(events.some((e) => e.agentName === 'writer' && e.type === 'turn.started')).toBe(true);
    expect(events.some((e) => e.agentName === 'reviewer' && e.type === 'turn.completed')).toBe(true);
    expect((await get(`/v1/traces/${'0'.repeat(32)}`)).status).toBe(404);
    const bad = await get('/v1/traces?limit=nope');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('?limit');
  });
});
