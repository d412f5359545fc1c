/** `bun test`: the MCP server started as goondan starts it (`node mcp/server.mjs`), spoken to over stdio. */
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';

const server = () => Bun.spawn(['node', join(import.meta.dir, 'server.mjs')], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });
let proc: ReturnType<typeof server> | undefined;
afterEach(() => proc?.kill());

/** Sends each request as one line and reads one answer line per request (notifications get none). */
async function exchange(requests: object[]): Promise<unknown[]> {
  proc = server();
  for (const request of requests) proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...request })}\n`);
  proc.stdin.end();
  const lines = (await new Response(proc.stdout).text()).split('\n').filter((line) => line !== '');
  return lines.map((line) => JSON.parse(line));
}

describe('the local MCP server', () => {
  test('initialize, list the tools, call reverse', async () => {
    const answers = await exchange([
      { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
      { method: 'notifications/initialized' },
      { id: 2, method: 'tools/list' },
      { id: 3, method: 'tools/call', params: { name: 'reverse', arguments: { text: 'abc' } } },
    ]);
    expect(answers).toEqual([
      expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-06-18', capabilities: { tools: {} } }) }),
      expect.objectContaining({ id: 2, result: { tools: [expect.objectContaining({ name: 'reverse' })] } }),
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'cba' }] } },
    ]);
  });

  test('an unknown tool or method is a JSON-RPC error', async () => {
    const answers = await exchange([
      { id: 1, method: 'tools/call', params: { name: 'nope', arguments: {} } },
      { id: 2, method: 'resources/list' },
    ]);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'unknown tool: nope' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method not found: resources/list' } },
    ]);
  });
});
