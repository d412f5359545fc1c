/**
 * A daemon that answers nothing, or that cuts a streamed reply (it crashed or was killed mid-turn):
 * the command says so in one line — which daemon, what happened, how to follow the event — and
 * exits 1; it neither hangs nor prints a stack trace. Fake daemons on loopback stand in for the
 * broken ones.
 */
import { afterEach, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { type CliRun, goondan } from './goondan-cli.ts';

const servers: Server<undefined>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

function fakeDaemon(fetch: (request: Request) => Response | Promise<Response>): string {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

const stateRoot = () => mkdtempSync(join(tmpdir(), 'goondan-cut-'));
const TRACE = '0123456789abcdef0123456789abcdef';
const delta = `event: step.delta\ndata: ${JSON.stringify({ type: 'step.delta', agentName: 'alpha', stepId: 'step_1', text: 'half an ans', traceId: TRACE })}\n\n`;

function expectOneLine(run: CliRun): void {
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

test('goondan ps against a daemon that never answers gives up after GOONDAN_CLI_ANSWER_TIMEOUT_MS', async () => {
  const url = fakeDaemon(() => new Promise<Response>(() => {}));
  const run = await goondan(['ps', '--state-root', stateRoot()], { env: { GOONDAN_API_URL: url, GOONDAN_CLI_ANSWER_TIMEOUT_MS: '300' } });
  expect(run.code).toBe(1);
  expectOneLine(run);
  expect(run.stderr).toContain(`goondan ps: the goondan daemon at ${url} did not answer GET /v1/processes within 300 ms`);
});

test('goondan send whose streamed reply is cut mid-turn says the event goes on and how to follow it', async () => {
  const url = fakeDaemon(() => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(delta));
        // The daemon dies: its connections close under the open stream.
        setTimeout(() => servers[0]?.stop(true), 50);
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
  });
  const run = await goondan(['send', 'hi', '--state-root', stateRoot()], { env: { GOONDAN_API_URL: url } });
  expect(run.code).toBe(1);
  expectOneLine(run);
  expect(run.stdout).toBe('half an ans\n');
  expect(run.stderr).toContain(`goondan send: the daemon at ${url} cut the reply's stream`);
  expect(run.stderr).toContain("'goondan logs --trace 01234567' shows it");
});

test('goondan send whose stream ends without the reply says so', async () => {
  const url = fakeDaemon(() => new Response(delta, { headers: { 'content-type': 'text/event-stream' } }));
  const run = await goondan(['send', 'hi', '--state-root', stateRoot()], { env: { GOONDAN_API_URL: url } });
  expect(run.code).toBe(1);
  expectOneLine(run);
  expect(run.stderr).toContain(`goondan send: the daemon at ${url} ended the reply's stream without the reply`);
});
