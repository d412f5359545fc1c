/**
 * The mcp extension against a real streamable-HTTP MCP server (tests/fixtures/mcp/http-server.ts,
 * a subprocess on 127.0.0.1), through the real engine with the scripted mock model.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { userEvent } from '../agent-process/helpers/engine-fixture.ts';
import { probe, resetProbe } from '../fixtures/mcp/probe-extension.ts';
import { waitFor, waitUntil } from '../helpers/wait-for.ts';
import { MCP_FIXTURES, callRule, closeEngines, engineWithMcp, resultsOf, warnings } from './mcp-helpers.ts';

/** A running fixture server and everything it printed so far. */
interface HttpFixture {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  port: number;
  url: string;
  output: () => string;
}

const running: HttpFixture[] = [];

async function startHttpServer(port = 0, env: Record<string, string> = {}): Promise<HttpFixture> {
  const proc = Bun.spawn([process.execPath, join(MCP_FIXTURES, 'http-server.ts'), String(port)], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, ...env },
  });
  let text = '';
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) text += decoder.decode(chunk);
  })();
  try {
    await waitUntil(() => /LISTENING (\d+)/.test(text), 'the fixture HTTP server to print LISTENING <port>');
  } catch (error) {
    proc.kill('SIGKILL');
    throw new Error(`${error instanceof Error ? error.message : String(error)}; its stderr: ${await new Response(proc.stderr).text()}`);
  }
  const listening = Number(/LISTENING (\d+)/.exec(text)?.[1]);
  const fixture: HttpFixture = { proc, port: listening, url: `http://127.0.0.1:${listening}/mcp`, output: () => text };
  running.push(fixture);
  return fixture;
}

async function stopHttpServer(fixture: HttpFixture): Promise<void> {
  fixture.proc.kill('SIGKILL');
  await fixture.proc.exited;
}

beforeEach(() => resetProbe());
afterEach(async () => {
  await closeEngines();
  for (const fixture of running.splice(0)) await stopHttpServer(fixture);
  delete process.env.GOONDAN_MCP_TEST_TOKEN;
});

describe('streamable HTTP servers', () => {
  test('tools are offered as {server}__{tool} with source mcp and calls return mapped results', async () => {
    const server = await startHttpServer();
    const h = await engineWithMcp({ servers: { web: { url: server.url } } }, [callRule('go', { name: 'web__echo', args: { text: 'over http' } }, { name: 'web__add', args: { a: 1, b: 2 } }, { name: 'web__fail' })]);
    await h.engine.runTurn(userEvent('go'));
    expect(probe.catalogs[0]?.find((item) => item.name === 'web__echo')?.source).toEqual({ type: 'mcp', name: 'web', mcp: { extensionName: 'mcp', serverName: 'web' } });
    expect(resultsOf('web__echo')[0]).toMatchObject({ status: 'ok', output: 'over http' });
    expect(resultsOf('web__add')[0]).toMatchObject({ status: 'ok', output: { sum: 3 } });
    expect(resultsOf('web__fail')[0]?.error).toMatchObject({ code: 'E_MCP_TOOL_ERROR', message: 'it broke: no reason' });
  });

  test('headers are sent (values may come from the environment); a refused token leaves the server unavailable with a warning', async () => {
    const server = await startHttpServer(0, { MCP_FIXTURE_TOKEN: 'tok-123' });
    process.env.GOONDAN_MCP_TEST_TOKEN = 'Bearer tok-123';
    const h = await engineWithMcp(
      {
        servers: {
          good: { url: server.url, include: ['echo'], headers: { Authorization: { valueFrom: { env: 'GOONDAN_MCP_TEST_TOKEN' } } } },
          bad: { url: server.url, include: ['echo'], headers: { Authorization: 'Bearer wrong' } },
        },
      },
      [callRule('go', { name: 'good__echo', args: { text: 'authorised' } })],
    );
    expect(warnings(h, 'E_MCP_UNAVAILABLE')[0]).toMatchObject({ server: 'bad', transport: 'http', url: server.url });
    expect(String(warnings(h, 'E_MCP_UNAVAILABLE')[0]?.msg)).toContain('HTTP 401');
    await h.engine.runTurn(userEvent('go'));
    expect(probe.catalogs[0]?.map((item) => item.name)).toEqual(['good__echo']);
    expect(resultsOf('good__echo')[0]).toMatchObject({ status: 'ok', output: 'authorised' });
    expect(JSON.stringify(h.logLines())).not.toContain('tok-123');
  });

  test('after the server restarts (its sessions are gone) the next call opens a new session and succeeds', async () => {
    const first = await startHttpServer();
    const h = await engineWithMcp({ servers: { web: { url: first.url } } }, [callRule('pid', { name: 'web__pid' })]);
    await h.engine.runTurn(userEvent('pid'));
    await stopHttpServer(first);
    const second = await startHttpServer(first.port);
    await h.engine.runTurn(userEvent('pid'));
    const [before, after] = resultsOf('web__pid');
    expect(before?.output).toBe(String(first.proc.pid));
    expect(after).toMatchObject({ status: 'ok', output: String(second.proc.pid) });
  });

  test('a server that is down fails the call with E_MCP_UNAVAILABLE and a suggestion; once it is back the next call works', async () => {
    const first = await startHttpServer();
    const h = await engineWithMcp({ servers: { web: { url: first.url } } }, [callRule('echo', { name: 'web__echo', args: { text: 'x' } })]);
    await stopHttpServer(first);
    await h.engine.runTurn(userEvent('echo'));
    const down = resultsOf('web__echo')[0]?.error;
    expect(down?.code).toBe('E_MCP_UNAVAILABLE');
    expect(down?.message).toContain("MCP server 'web'");
    expect(down?.suggestion).toContain('on the next call');
    await startHttpServer(first.port);
    await h.engine.runTurn(userEvent('echo'));
    expect(resultsOf('web__echo')[1]).toMatchObject({ status: 'ok', output: 'x' });
  });

  test('engine.close() ends the HTTP session (DELETE)', async () => {
    const server = await startHttpServer();
    const h = await engineWithMcp({ servers: { web: { url: server.url } } });
    await h.engine.runTurn(userEvent('hello'));
    await closeEngines();
    await waitFor('the server to report SESSION_CLOSED (its output so far)', () => server.output(), (output) => output.includes('SESSION_CLOSED'));
  });
});
