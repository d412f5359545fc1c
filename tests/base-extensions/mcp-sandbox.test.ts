/**
 * Issue 9: stdio MCP servers run inside the agent's bubblewrap sandbox unless their config says
 * `sandbox: false` — third-party code gets the workspace, not the state root, the agent's
 * environment or a life beyond the agent process.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userEvent } from '../agent-process/helpers/engine-fixture.ts';
import { resetProbe } from '../fixtures/mcp/probe-extension.ts';
import { pidsRunning, waitUntilGone } from '../helpers/process-state.ts';
import { requireBwrap } from '../helpers/require-bwrap.ts';
import { MCP_FIXTURES, REPO, callRule, closeEngines, engineWithMcp, resultsOf, stdioServer, warnings } from './mcp-helpers.ts';

requireBwrap();
// Each test starts bun-run MCP servers inside bwrap: give a loaded machine room.
const SERVER_TEST_MS = 30_000;

const saved = { ...process.env };
afterEach(async () => {
  await closeEngines();
  resetProbe();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
});

const sandboxed = (extra: Record<string, unknown> = {}) => stdioServer({ sandbox: { readOnlyPaths: [REPO] }, ...extra });
const outputOf = (tool: string, index = 0): string => String(resultsOf(tool)[index]?.output);

describe('a stdio MCP server runs in the agent\'s sandbox', () => {
  test('it works, starts in the workspace with HOME there, and cannot see the agent\'s environment', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-secret';
    const h = await engineWithMcp({ servers: { fx: sandboxed() } }, [
      callRule('go', { name: 'fx__echo', args: { text: 'inside' } }, { name: 'fx__env' }, { name: 'fx__read', args: { path: '/proc/1/environ' } }),
    ]);
    await h.engine.runTurn(userEvent('go'));
    expect(outputOf('fx__echo')).toBe('inside');
    expect(JSON.parse(outputOf('fx__env'))).toMatchObject({ cwd: h.paths.workdir });
    const environ = outputOf('fx__read');
    expect(environ).toContain(`HOME=${h.paths.workdir}`);
    expect(environ).not.toContain('sk-test-secret');
  }, SERVER_TEST_MS);

  test('it cannot read files of the state root outside the workspace', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-mcp-state-'));
    const secret = join(stateRoot, 'other-instance-secret.txt');
    writeFileSync(secret, 'tenant-secret');
    try {
      const h = await engineWithMcp({ servers: { fx: sandboxed() } }, [callRule('go', { name: 'fx__read', args: { path: secret } })], { stateRoot });
      await h.engine.runTurn(userEvent('go'));
      expect(outputOf('fx__read')).toContain('unreadable');
      expect(outputOf('fx__read')).not.toContain('tenant-secret');
    } finally {
      rmSync(stateRoot, { recursive: true, force: true });
    }
  }, SERVER_TEST_MS);

  test('sandbox: false runs it on the host as before (the same file is readable)', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-mcp-state-'));
    const secret = join(stateRoot, 'other-instance-secret.txt');
    writeFileSync(secret, 'tenant-secret');
    try {
      const h = await engineWithMcp({ servers: { fx: stdioServer({ sandbox: false }) } }, [callRule('go', { name: 'fx__read', args: { path: secret } })], { stateRoot });
      await h.engine.runTurn(userEvent('go'));
      expect(outputOf('fx__read')).toBe('tenant-secret');
    } finally {
      rmSync(stateRoot, { recursive: true, force: true });
    }
  }, SERVER_TEST_MS);

  test('mode required without a working bwrap: the server is not started, the agent runs on and says why', async () => {
    process.env.GOONDAN_BWRAP_PATH = '/nonexistent/bwrap-for-mcp';
    const h = await engineWithMcp({ servers: { fx: sandboxed({ sandbox: { mode: 'required', readOnlyPaths: [REPO] } }) } });
    const warning = warnings(h, 'E_MCP_UNAVAILABLE')[0];
    expect(String(warning?.msg)).toContain('sandbox mode: required');
    expect(String(warning?.msg)).toContain('/nonexistent/bwrap-for-mcp');
  }, SERVER_TEST_MS);

  test('a SIGKILLed agent process takes its sandboxed server along', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-mcp-kill-'));
    const marker = `marker-${process.pid}-${Date.now()}`;
    const host = Bun.spawn([process.execPath, join(MCP_FIXTURES, 'sandboxed-server-host.ts'), stateRoot, marker], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' });
    try {
      const reader = host.stdout.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('ready');
      const server = pidsRunning([process.execPath, join(MCP_FIXTURES, 'stdio-server.ts'), marker]);
      expect(server).toHaveLength(1);
      host.kill('SIGKILL');
      await host.exited;
      expect(await waitUntilGone(server, 15_000)).toEqual([]);
    } finally {
      host.kill('SIGKILL');
      rmSync(stateRoot, { recursive: true, force: true });
    }
  }, SERVER_TEST_MS);
});
