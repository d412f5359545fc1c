/**
 * Bad input never crashes anything: malformed IPC messages in both directions, malformed HTTP
 * bodies, and the API's host/token rules.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GOONDAN_BIN, REPO_ROOT, sharedDaemon, startDaemon, tempStateRoot, waitFor } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemon = sharedDaemon(BUNDLE);

describe('malformed IPC messages are logged and dropped (ARCHITECTURE §2)', () => {
  test('garbage from an agent and to an agent crashes neither; the turn completes', async () => {
    const { body } = await daemon().send({ input: 'garble please', instanceKey: 'garble' });
    expect(body).toMatchObject({ status: 'ok', output: 'still alive' });
    // The log lines travel on the daemon's stdout, which may be read after the HTTP reply.
    const droppedByDaemon = () => daemon().logs.filter((l) => l.msg === 'dropped malformed IPC message from child' && l.process === 'alpha:garble');
    await waitFor("the daemon's three 'dropped' lines (so far)", droppedByDaemon, (lines) => lines.length >= 3);
    await daemon().waitForLog("alpha's 'dropped' line", (l) => l.msg === 'dropped a malformed IPC message' && l.agent === 'alpha');
    const again = await daemon().send({ input: 'whats your pid', instanceKey: 'garble' });
    const row = (await daemon().processes()).find((p) => p.agent === 'alpha' && p.instanceKey === 'garble');
    expect(again.body.output).toBe(`alpha pid ${String(row?.pid)}`);
    expect(row?.restarts).toBe(0);
    expect(droppedByDaemon()).toHaveLength(3);
  });
});

describe('malformed HTTP bodies get a 400 naming the field', () => {
  const post = (body: string, contentType = 'application/json') =>
    daemon().api('/v1/events', { method: 'POST', headers: { 'content-type': contentType }, body });

  test('invalid JSON', async () => {
    const response = await post('{"input": "hi"');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'E_HTTP_BAD_JSON' } });
  });

  test('missing input names /input', async () => {
    const response = await post('{"agent": "alpha"}');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; category: string; message: string; details: { problems: Array<{ path: string }> } } };
    expect(body.error).toMatchObject({ code: 'E_HTTP_BAD_BODY', category: 'user' });
    expect(body.error.details.problems.map((p) => p.path)).toContain('/input');
  });

  test('wrong types and unknown fields name their paths', async () => {
    const response = await post(JSON.stringify({ input: 'hi', wait: 'yes', colour: 'blue' }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { details: { problems: Array<{ path: string }> } } };
    const paths = body.error.details.problems.map((p) => p.path);
    expect(paths).toContain('/wait');
    expect(paths).toContain('/colour');
  });

  test('a body that is not an object, and an empty input', async () => {
    expect((await post('[1,2,3]')).status).toBe(400);
    expect((await post('{"input": ""}')).status).toBe(400);
  });

  test('an unknown agent is 404', async () => {
    const response = await post(JSON.stringify({ input: 'hi', agent: 'nobody' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'E_HTTP_UNKNOWN_AGENT' } });
  });

  test('a body that is not UTF-8 is refused, not read with replacement characters; the suggestion shows the route’s own body', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"input": "caf'), 0xe9, ...new TextEncoder().encode('"}')]);
    const response = await daemon().api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'E_HTTP_BAD_JSON', message: 'body is not valid UTF-8' } });
    const approval = await daemon().api('/v1/approvals/appr_x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"decision": ' });
    expect(((await approval.json()) as { error: { suggestion: string } }).error.suggestion).toContain('"decision": "approve"');
  });

  test('POST /v1/restart takes an empty body as {} (every field is optional); ?fresh takes true or false only', async () => {
    const restart = await daemon().api('/v1/restart', { method: 'POST', body: '' });
    expect(restart.status).toBe(200);
    const misspelt = await daemon().api('/v1/instances/k/restart?fresh=maybe', { method: 'POST' });
    expect(misspelt.status).toBe(400);
    expect(await misspelt.json()).toMatchObject({ error: { code: 'E_HTTP_BAD_QUERY', details: { path: '?fresh' } } });
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const response = await daemon().api('/v1/events', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect({ status: response.status, allow: response.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
    expect(await response.json()).toMatchObject({ error: { code: 'E_HTTP_METHOD_NOT_ALLOWED' } });
  });

  test('unknown routes are 404 and the daemon is still healthy afterwards', async () => {
    expect((await daemon().api('/v2/nothing')).status).toBe(404);
    expect((await daemon().api('/healthz')).status).toBe(200);
    expect((await daemon().api('/readyz')).status).toBe(200);
  });
});

describe('API host and token rules (ARCHITECTURE §6)', () => {
  test('a non-loopback host without GOONDAN_API_TOKEN refuses to start (exit 2)', async () => {
    const stateRoot = tempStateRoot();
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.GOONDAN_API_TOKEN;
    const proc = Bun.spawn([GOONDAN_BIN, 'run', BUNDLE, '--host', '0.0.0.0', '--port', '0', '--state-root', stateRoot], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env,
    });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain('GOONDAN_API_TOKEN');
  });

  test('a guessable GOONDAN_API_TOKEN on a non-loopback host, or one with whitespace anywhere, refuses to start (exit 2)', async () => {
    for (const [host, token, said] of [
      ['0.0.0.0', 'change-me', 'is 9 characters long'],
      ['127.0.0.1', 'two words', 'holds whitespace'],
    ] as const) {
      const proc = Bun.spawn([GOONDAN_BIN, 'run', BUNDLE, '--host', host, '--port', '0', '--state-root', tempStateRoot()], {
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
        env: { ...process.env, GOONDAN_API_TOKEN: token },
      });
      const stderr = await new Response(proc.stderr).text();
      expect({ code: await proc.exited, said: stderr.includes(said), leaked: stderr.includes(token) }).toEqual({ code: 2, said: true, leaked: false });
    }
  });

  test('with a token every route but the probes needs the bearer', async () => {
    const guarded = await startDaemon(BUNDLE, { args: ['--host', '0.0.0.0'], env: { GOONDAN_API_TOKEN: 's3cret-token-of-twenty' } });
    try {
      const url = guarded.url.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/v1/processes`)).status).toBe(401);
      expect((await fetch(`${url}/v1/processes`, { headers: { authorization: 'Bearer wrong-token!' } })).status).toBe(401);
      expect((await fetch(`${url}/v1/processes`, { headers: { authorization: 'Bearer s3cret-token-of-twenty' } })).status).toBe(200);
      // The token never reaches a log line.
      expect(JSON.stringify(guarded.logs)).not.toContain('s3cret-token-of-twenty');
    } finally {
      await guarded.stop();
      guarded.cleanup();
    }
  });
});

describe('the daemon API is not an agent\'s API (issue 9)', () => {
  test('on loopback too, every route but the probes and /metrics needs the state root\'s token (mode 0600)', async () => {
    const d = daemon();
    const url = d.url;
    for (const [method, path] of [['GET', '/v1/processes'], ['POST', '/v1/events'], ['GET', '/v1/approvals'], ['POST', '/v1/approvals/appr_x'], ['DELETE', '/v1/instances/victim'], ['POST', '/v1/restart'], ['GET', '/v1/events/stream']] as const) {
      const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"input":"x"}' } : {}) });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 401 });
      const body = (await response.json()) as { error: { code: string; suggestion: string } };
      expect(body.error.code).toBe('E_HTTP_UNAUTHORIZED');
      expect(body.error.suggestion).toContain('runtime/api-token');
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    const tokenFile = join(d.stateRoot, 'runtime', 'api-token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await fetch(`${url}/v1/processes`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(JSON.stringify(d.logs)).not.toContain(token);
  });
});
