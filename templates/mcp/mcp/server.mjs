// A tiny MCP server over stdio, with no dependencies: newline-delimited JSON-RPC 2.0 on stdin and
// stdout (MCP "stdio" transport). It offers one tool, `reverse`. Add your own to TOOLS; for
// anything bigger use the official SDK (npm install @modelcontextprotocol/sdk).
// Run by goondan as `node mcp/server.mjs`; stdout carries protocol only, so log to stderr.
import { createInterface } from 'node:readline';

const TOOLS = {
  reverse: {
    description: 'Reverse a text, character by character.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'The text to reverse.' } }, required: ['text'] },
    run: ({ text }) => [...String(text)].reverse().join(''),
  },
};

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

function answer(method, params) {
  switch (method) {
    case 'initialize':
      return {
        protocolVersion: params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'local-tools', version: '0.1.0' },
      };
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: Object.entries(TOOLS).map(([name, { description, inputSchema }]) => ({ name, description, inputSchema })) };
    case 'tools/call': {
      const tool = TOOLS[params?.name];
      if (!tool) throw Object.assign(new Error(`unknown tool: ${params?.name}`), { code: -32602 });
      try {
        return { content: [{ type: 'text', text: String(tool.run(params.arguments ?? {})) }] };
      } catch (error) {
        // A failing tool is a result the model reads, not a protocol error.
        return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
      }
    }
    default:
      throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ id: null, error: { code: -32700, message: 'parse error' } });
    return;
  }
  if (request.id === undefined) return; // a notification (e.g. notifications/initialized): no answer
  try {
    send({ id: request.id, result: answer(request.method, request.params) });
  } catch (error) {
    send({ id: request.id, error: { code: error.code ?? -32603, message: error.message } });
  }
});
