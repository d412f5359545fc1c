/**
 * The daemon's HTTP server against hostile clients, on a real daemon: a chunked upload past the body
 * limit is refused without being read whole (also on the unauthenticated studio login), and a
 * loopback daemon refuses a request for another host name (DNS rebinding), /metrics included.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { REPO_ROOT, sharedDaemon, withToken } from '../e2e/daemon-harness.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));

/** A body of `chunks` × 1 MB sent chunked (no Content-Length), counting how much the server took. */
function chunkedBody(chunks: number): { body: ReadableStream<Uint8Array>; sent: () => number } {
  let sent = 0;
  const chunk = new Uint8Array(1_000_000).fill(0x7b);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= chunks) {
        controller.close();
        return;
      }
      sent += 1;
      controller.enqueue(chunk);
    },
  });
  return { body, sent: () => sent };
}

describe('a chunked upload past the body limit', () => {
  for (const path of ['/studio/session', '/v1/chat/completions']) {
    test(`is refused 413 on ${path} before the upload ends`, async () => {
      // 100 MB: under Bun's own 128 MB limit, so only the daemon's bound can stop it early.
      const upload = chunkedBody(100);
      const init = { method: 'POST', body: upload.body, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit;
      const response = await fetch(`${daemon().url}${path}`, path === '/studio/session' ? init : withToken(daemon().stateRoot, init));
      expect(response.status).toBe(413);
      await response.text();
      expect(upload.sent()).toBeLessThan(20);
    });
  }
});

describe('DNS rebinding', () => {
  test('a request naming another host is refused 421; loopback names are served', async () => {
    for (const path of ['/metrics', '/healthz', '/v1/processes']) {
      const response = await fetch(`${daemon().url}${path}`, { headers: { host: 'attacker.example' } });
      expect(response.status).toBe(421);
      expect(await response.json()).toMatchObject({ error: { code: 'E_HTTP_HOST_REFUSED' } });
    }
    const port = new URL(daemon().url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
      expect((await fetch(`${daemon().url}/metrics`, { headers: { host } })).status).toBe(200);
    }
  });
});
