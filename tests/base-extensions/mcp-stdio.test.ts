/**
 * The mcp extension against a real stdio MCP server (tests/fixtures/mcp/stdio-server.ts, written
 * with the SDK's server side), through the real engine with the scripted mock model.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError } from '../../agent-process/engine/engine-error.ts';
import { makePlan, removeDir, startEngine, userEvent } from '../agent-process/helpers/engine-fixture.ts';
import { probe, resetProbe } from '../fixtures/mcp/probe-extension.ts';
import { isRunning } from '../helpers/process-state.ts';
import { waitFor, waitUntil, within } from '../helpers/wait-for.ts';
import {
  MCP_FIXTURES,
  REPO,
  callRule,
  closeEngines,
  engineWithMcp,
  mcpExtension,
  resultsOf,
  stdioServer,
  warnings,
} from './mcp-helpers.ts';

let tempDir = '';
beforeEach(() => {
  resetProbe();
  tempDir = mkdtempSync(join(tmpdir(), 'goondan-mcp-'));
});
afterEach(async () => {
  await closeEngines();
  rmSync(tempDir, { recursive: true, force: true });
  delete process.env.GOONDAN_MCP_TEST_SECRET;
});

const catalogItem = (name: string) => probe.catalogs[0]?.find((item) => item.name === name);
const pidOf = (output: unknown): number => Number(output);

describe('MCP tools join the catalog as {server}__{tool}', () => {
  test('every listed tool is offered with its description, inputSchema as parameters and source type mcp', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } });
    await h.engine.runTurn(userEvent('hello'));
    const names = probe.catalogs[0]?.map((item) => item.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['fx__echo', 'fx__add', 'fx__fail', 'fx__crash', 'fx__pid', 'fx__grow']));
    expect(catalogItem('fx__add')).toEqual({
      name: 'fx__add',
      description: 'Add two numbers.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      source: { type: 'mcp', name: 'fx', mcp: { extensionName: 'mcp', serverName: 'fx' } },
    });
    // $schema (2020-12) is dropped so the engine's draft-07 ajv can compile the schema; the rest passes through.
    expect(catalogItem('fx__echo')?.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false });
  });

  test('the "connected" line names the server\'s pid as serverPid and keeps the agent process\'s own pid', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } });
    await h.engine.runTurn(userEvent('hello'));
    const connected = h.logLines().find((line) => line.msg === "MCP server 'fx' connected");
    expect(connected).toMatchObject({ server: 'fx', transport: 'stdio', serverPid: expect.any(Number), pid: process.pid });
    expect(connected?.serverPid).not.toBe(process.pid);
  });

  test('names with characters outside A-Za-z0-9_- or with __ are mapped to - and a warning says so', async () => {
    const h = await engineWithMcp({ servers: { 'my.fx__v2': stdioServer({ include: ['echo', 'dotted.name'] }) } });
    await h.engine.runTurn(userEvent('hello'));
    expect(probe.catalogs[0]?.map((item) => item.name)).toEqual(['my-fx-v2__echo', 'my-fx-v2__dotted-name']);
    expect(warnings(h, 'W_MCP_SERVER_NAME_MAPPED')[0]).toMatchObject({ server: 'my.fx__v2', toolPrefix: 'my-fx-v2' });
    expect(warnings(h, 'W_MCP_TOOL_NAME_MAPPED')[0]).toMatchObject({ mcpTool: 'dotted.name', tool: 'my-fx-v2__dotted-name' });
    expect(catalogItem('my-fx-v2__echo')?.source).toEqual({ type: 'mcp', name: 'my.fx__v2', mcp: { extensionName: 'mcp', serverName: 'my.fx__v2' } });
  });

  test('a tool whose inputSchema the engine refuses is left out with a warning; the server keeps its other tools', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [callRule('go', { name: 'fx__echo', args: { text: 'fine' } })]);
    await h.engine.runTurn(userEvent('go'));
    expect(probe.catalogs[0]?.map((item) => item.name)).not.toContain('fx__broken-schema');
    expect(warnings(h, 'W_MCP_TOOL_REJECTED')[0]).toMatchObject({ server: 'fx', mcpTool: 'broken-schema', errorCode: 'E_TOOL_INVALID_SCHEMA' });
    expect(resultsOf('fx__echo')[0]).toMatchObject({ status: 'ok', output: 'fine' });
  });

  test('include and exclude filter the tools by MCP name (wildcards allowed, exclude wins)', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer({ include: ['e*', 'add', 'pid'], exclude: ['env', 'pid'] }) } });
    await h.engine.runTurn(userEvent('hello'));
    expect(probe.catalogs[0]?.map((item) => item.name)).toEqual(['fx__echo', 'fx__add']);
  });

  test('readOnlyHint becomes readOnly only when the server is trusted (trustAnnotations)', async () => {
    const h = await engineWithMcp({ servers: { plain: stdioServer({ include: ['add'] }), trusted: stdioServer({ include: ['add'], trustAnnotations: true }) } });
    await h.engine.runTurn(userEvent('hello'));
    expect(catalogItem('plain__add')?.readOnly).toBeUndefined();
    expect(catalogItem('trusted__add')?.readOnly).toBe(true);
  });
});

describe('calls return mapped MCP results', () => {
  test('text content comes back as a string, structuredContent as JSON, other parts described', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [
      callRule('go', { name: 'fx__echo', args: { text: 'hi there' } }, { name: 'fx__add', args: { a: 2, b: 3 } }, { name: 'fx__mixed' }),
    ]);
    const turn = await h.engine.runTurn(userEvent('go'));
    expect(turn.responseText).toBe('done');
    expect(resultsOf('fx__echo')[0]).toMatchObject({ status: 'ok', output: 'hi there' });
    expect(resultsOf('fx__add')[0]).toMatchObject({ status: 'ok', output: { sum: 5 } });
    expect(resultsOf('fx__mixed')[0]?.output).toEqual([
      { type: 'text', text: 'a picture:' },
      { type: 'image', mimeType: 'image/png', size: '16 bytes', note: 'image data not shown' },
      { type: 'resource_link', uri: 'file:///tmp/report.txt', name: 'report.txt', mimeType: 'text/plain' },
      { type: 'resource', uri: 'memo://1', mimeType: 'text/plain', text: 'embedded memo' },
      { type: 'resource', uri: 'blob://1', mimeType: 'application/octet-stream', size: '4 bytes', note: 'binary resource data not shown' },
    ]);
  });

  test('isError: true becomes an error ToolResult E_MCP_TOOL_ERROR carrying the tool text', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [callRule('go', { name: 'fx__fail', args: { reason: 'disk full' } })]);
    await h.engine.runTurn(userEvent('go'));
    expect(resultsOf('fx__fail')[0]).toMatchObject({ status: 'error', error: { code: 'E_MCP_TOOL_ERROR', message: 'it broke: disk full' } });
  });

  test('a JSON-RPC error answer becomes E_MCP_PROTOCOL_ERROR with the server message; the connection stays up', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [callRule('go', { name: 'fx__pid' }, { name: 'fx__reject' }, { name: 'fx__pid' })]);
    await h.engine.runTurn(userEvent('go'));
    const error = resultsOf('fx__reject')[0]?.error;
    expect(error?.code).toBe('E_MCP_PROTOCOL_ERROR');
    expect(error?.message).toContain('reject always refuses');
    const [before, after] = resultsOf('fx__pid');
    expect(after?.output).toBe(before?.output);
  });

  test('arguments that fail the MCP inputSchema are rejected by the engine before the server is called', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [
      callRule('go', { name: 'fx__echo', args: { text: 'ok', extra: 1 } }, { name: 'fx__add', args: { a: 'two', b: 3 } }),
    ]);
    await h.engine.runTurn(userEvent('go'));
    expect(resultsOf('fx__echo')[0]?.error).toMatchObject({ code: 'E_TOOL_INVALID_ARGS', message: expect.stringContaining('args.extra') });
    expect(resultsOf('fx__add')[0]?.error).toMatchObject({ code: 'E_TOOL_INVALID_ARGS', message: expect.stringContaining('args.a: expected number') });
  });

  test('a call slower than timeoutMs fails with E_MCP_TIMEOUT and the server stays usable', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer({ timeoutMs: 300 }) } }, [
      callRule('go', { name: 'fx__slow', args: { ms: 600_000 } }, { name: 'fx__echo', args: { text: 'still here' } }),
    ]);
    // Waiting for the slow call (or queueing the next one behind it) would take ten minutes.
    await within(h.engine.runTurn(userEvent('go')), 'the turn to go on without the timed-out call');
    expect(resultsOf('fx__slow')[0]?.error).toMatchObject({ code: 'E_MCP_TIMEOUT', message: expect.stringContaining('300 ms'), suggestion: expect.stringContaining('timeoutMs') });
    expect(resultsOf('fx__echo')[0]).toMatchObject({ status: 'ok', output: 'still here' });
  });

  test('the server gets the configured env and cwd (env values may come from the environment), not the agent environment', async () => {
    process.env.GOONDAN_MCP_TEST_SECRET = 's3cret';
    const h = await engineWithMcp(
      {
        servers: {
          plain: stdioServer({ include: ['env'] }),
          given: stdioServer({ include: ['env'], cwd: tempDir, env: { MCP_FIXTURE_TAG: 'tag-1', GOONDAN_MCP_TEST_SECRET: { valueFrom: { env: 'GOONDAN_MCP_TEST_SECRET' } } } }),
        },
      },
      [callRule('go', { name: 'plain__env' }, { name: 'given__env' })],
    );
    await h.engine.runTurn(userEvent('go'));
    expect(JSON.parse(String(resultsOf('plain__env')[0]?.output))).toMatchObject({ tag: null, secret: null });
    expect(JSON.parse(String(resultsOf('given__env')[0]?.output))).toEqual({ tag: 'tag-1', secret: 's3cret', cwd: tempDir });
    // Secrets never reach the log.
    expect(JSON.stringify(h.logLines())).not.toContain('s3cret');
  });
});

describe('reconnecting after a server restart', () => {
  test('a server that exits during a call fails that call with E_MCP_UNAVAILABLE; the next call starts a new process', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [callRule('go', { name: 'fx__pid' }, { name: 'fx__crash' }, { name: 'fx__pid' })]);
    await h.engine.runTurn(userEvent('go'));
    const [before, after] = resultsOf('fx__pid');
    const crash = resultsOf('fx__crash')[0]?.error;
    expect(crash?.code).toBe('E_MCP_UNAVAILABLE');
    expect(crash?.message).toContain('closed the connection during the call');
    // The server's last stderr lines explain why it died.
    expect(crash?.message).toContain('crashing on purpose');
    expect(after?.status).toBe('ok');
    expect(pidOf(after?.output)).not.toBe(pidOf(before?.output));
    expect(isRunning(pidOf(before?.output))).toBe(false);
    expect(warnings(h, 'E_MCP_SERVER_CLOSED')).toHaveLength(1);
  });

  test('a server killed between turns is reconnected by the next call and its tool list is refreshed', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [callRule('pid', { name: 'fx__pid' }), callRule('grow', { name: 'fx__grow' })]);
    await h.engine.runTurn(userEvent('grow'));
    await h.engine.runTurn(userEvent('pid'));
    const first = pidOf(resultsOf('fx__pid')[0]?.output);
    process.kill(first, 'SIGKILL');
    // Reconnection starts once the extension has seen the exit (the SDK reports the closed pipe).
    await waitFor('one E_MCP_SERVER_CLOSED warning (so far)', () => warnings(h, 'E_MCP_SERVER_CLOSED'), (found) => found.length === 1);
    expect(isRunning(first)).toBe(false);
    await h.engine.runTurn(userEvent('pid'));
    const second = resultsOf('fx__pid')[1];
    expect(second?.error).toBeUndefined();
    expect(second?.status).toBe('ok');
    expect(pidOf(second?.output)).not.toBe(first);
    // The new process lists no `extra` (its grow state is gone): the stale tool leaves the catalog.
    expect(probe.catalogs.at(-1)?.map((item) => item.name)).not.toContain('fx__extra');
  });

  test('notifications/tools/list_changed refreshes the tools: added ones join the next step, removed ones leave it', async () => {
    const h = await engineWithMcp({ servers: { fx: stdioServer() } }, [callRule('go', { name: 'fx__grow' }, { name: 'fx__extra' }, { name: 'fx__shrink' }, { name: 'fx__extra' })]);
    await h.engine.runTurn(userEvent('go'));
    const names = probe.catalogs.map((catalog) => catalog.some((item) => item.name === 'fx__extra'));
    // step 0 (before grow) no; 1 and 2 (after grow) yes; 3 and 4 (after shrink) no.
    expect(names).toEqual([false, true, true, false, false]);
    expect(resultsOf('fx__extra')[0]).toMatchObject({ status: 'ok', output: 'extra ran' });
    expect(resultsOf('fx__extra')[1]?.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
  });

  test('a server that cannot start is logged and skipped, the others work, and it is retried at a later turn', async () => {
    const downFile = join(tempDir, 'down');
    writeFileSync(downFile, '');
    const h = await engineWithMcp(
      { servers: { flaky: stdioServer({ include: ['echo'], env: { MCP_FIXTURE_DOWN_FILE: downFile } }), fx: stdioServer({ include: ['echo'] }) } },
      [callRule('both', { name: 'fx__echo', args: { text: 'a' } }, { name: 'flaky__echo', args: { text: 'b' } })],
    );
    const [warning] = warnings(h, 'E_MCP_UNAVAILABLE');
    expect(warning).toMatchObject({ server: 'flaky', transport: 'stdio' });
    expect(String(warning?.msg)).toContain('refusing to start');
    await h.engine.runTurn(userEvent('both'));
    expect(probe.catalogs[0]?.map((item) => item.name)).toEqual(['fx__echo']);
    expect(resultsOf('fx__echo')[0]?.status).toBe('ok');

    rmSync(downFile);
    // A retry is due 1 s·2^(n−1) after the n-th failure. On a slow machine the first turn may
    // itself have started late enough to retry (and fail again), doubling the wait: time it from
    // the last failure seen, not from the start.
    const last = warnings(h, 'E_MCP_UNAVAILABLE').filter((line) => line.server === 'flaky').at(-1);
    const due = Number(last?.time) + 1000 * 2 ** (Number(last?.failures) - 1);
    expect(Number.isFinite(due)).toBe(true);
    await Bun.sleep(Math.max(0, due - Date.now()) + 5);
    await h.engine.runTurn(userEvent('both'));
    expect(resultsOf('flaky__echo').at(-1)).toMatchObject({ status: 'ok', output: 'b' });
  });

  test('a command that does not exist leaves the agent running with a warning', async () => {
    const h = await engineWithMcp({ servers: { ghost: { command: join(tempDir, 'no-such-server') } } }, [callRule('go', { name: 'ghost__anything' })]);
    expect(warnings(h, 'E_MCP_UNAVAILABLE')[0]).toMatchObject({ server: 'ghost', command: join(tempDir, 'no-such-server') });
    const turn = await h.engine.runTurn(userEvent('go'));
    expect(turn.finishReason).toBe('text_response');
    expect(resultsOf('ghost__anything')[0]?.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
  });
});

describe('the servers stop with the agent process', () => {
  test('engine.close() ends the stdio server processes (api.onClose)', async () => {
    const pidFile = join(tempDir, 'pids');
    const h = await startEngine(makePlan({ extensions: [mcpExtension({ servers: { fx: stdioServer({ env: { MCP_FIXTURE_PID_FILE: pidFile } }) } })] }));
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(isRunning(pid)).toBe(true);
    try {
      await h.engine.close();
      await waitUntil(() => !isRunning(pid), `the stdio server (pid ${pid}) to exit`);
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
      removeDir(h.stateRoot);
    }
  });

  test('if the agent process exits without close, the exit guard terminates even a server that ignores stdin EOF', async () => {
    const pidFile = join(tempDir, 'pids');
    const proc = Bun.spawn([process.execPath, join(MCP_FIXTURES, 'exit-without-close.ts'), pidFile], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' });
    const [stderr, exitCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect({ exitCode, stderr: exitCode === 0 ? '' : stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    try {
      await waitUntil(() => !isRunning(pid), `the stdio server that ignores stdin EOF (pid ${pid}) to be terminated`);
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('config errors fail register() with E_EXT_INIT naming the server and field', () => {
  const initError = async (config: Record<string, unknown>): Promise<string> => {
    const error = await startEngine(makePlan({ extensions: [mcpExtension(JSON.parse(JSON.stringify(config)))] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_INIT');
    return String(error instanceof Error ? error.message : error);
  };

  test('a server with both command and url, or neither', async () => {
    expect(await initError({ servers: { both: { command: 'x', url: 'http://127.0.0.1/mcp' } } })).toContain('servers.both: set exactly one of "command"');
    expect(await initError({ servers: { none: { args: [] } } })).toContain('servers.none: set exactly one of "command"');
  });

  test('wrong field types, unknown fields, relative cwd, bad URLs and missing env variables', async () => {
    const message = await initError({
      servers: {
        a: { command: 'x', args: 'not-a-list' },
        b: { command: 'x', cwd: 'relative/dir' },
        c: { url: 'ftp://example.com' },
        d: { command: 'x', env: { TOKEN: { valueFrom: { env: 'GOONDAN_MCP_SURELY_UNSET' } } } },
        e: { url: 'http://127.0.0.1/mcp', header: {} },
      },
    });
    expect(message).toContain("Extension 'mcp'");
    expect(message).toContain('servers.a.args: must be array');
    expect(message).toContain('servers.b.cwd: must be an absolute path');
    expect(message).toContain('servers.c.url: must be an http:// or https:// URL');
    expect(message).toContain('servers.d.env.TOKEN: environment variable GOONDAN_MCP_SURELY_UNSET is not set');
    expect(message).toContain('servers.e: unknown field "header"');
  });

  test('a misspelt top-level setting and two servers whose names map to the same prefix', async () => {
    expect(await initError({ servers: {}, timeout: 5 })).toContain('config: unknown field "timeout"');
    expect(await initError({ servers: { 'a.b': { command: 'x' }, 'a-b': { command: 'x' } } })).toContain('servers.a-b: its tool prefix "a-b" is the same as that of servers.a.b');
  });
});
