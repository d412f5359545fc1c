/**
 * The pure parts of the mcp extension, rule by rule: result mapping, tool names, parameter
 * schemas and config resolution (the engine tests in mcp-stdio / mcp-http cover them end to end).
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isJsonObject } from '../../shared/types/json.ts';
import { readMcpConfig } from '../../bundles/base/extensions/mcp/mcp-config.ts';
import { McpExtensionError } from '../../bundles/base/extensions/mcp/mcp-error.ts';
import { createToolFilter } from '../../bundles/base/extensions/mcp/tool-filter.ts';
import { mcpToolName, sanitizeNamePart } from '../../bundles/base/extensions/mcp/tool-naming.ts';
import { toToolParameters } from '../../bundles/base/extensions/mcp/tool-parameters.ts';
import { mapToolResult } from '../../bundles/base/extensions/mcp/tool-result.ts';

const at = { server: 'fx', tool: 'thing' };

describe('MCP results become JSON the model can read', () => {
  test('structuredContent is preferred over the text parts', () => {
    expect(mapToolResult({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }, at)).toEqual({ n: 1 });
  });

  test('only text parts: joined with newlines into one string; no parts: an empty string', () => {
    expect(mapToolResult({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, at)).toBe('a\nb');
    expect(mapToolResult({ content: [] }, at)).toBe('');
  });

  test('unknown part types are named, not dumped', () => {
    expect(mapToolResult({ content: [{ type: 'hologram', data: 'x'.repeat(100) }] }, at)).toEqual([{ type: 'hologram', note: "content of type 'hologram' is not shown" }]);
  });

  test('the legacy toolResult field (protocol 2024-10-07) is passed through', () => {
    expect(mapToolResult({ toolResult: { legacy: true } }, at)).toEqual({ legacy: true });
  });

  test('isError throws E_MCP_TOOL_ERROR with the text, or a message naming tool and server when there is none', () => {
    const thrown = (reply: Parameters<typeof mapToolResult>[0]): unknown => {
      try {
        mapToolResult(reply, at);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const withText = thrown({ isError: true, content: [{ type: 'text', text: 'no such file' }] });
    expect(McpExtensionError.isInstance(withText) && withText.toJSON()).toMatchObject({ code: 'E_MCP_TOOL_ERROR', message: 'no such file' });
    const silent = thrown({ isError: true, content: [] });
    expect(McpExtensionError.isInstance(silent) && silent.message).toBe("MCP tool 'thing' of server 'fx' reported an error without a message");
  });
});

describe('tool names follow the {server}__{tool} rule (tool spec §5.2)', () => {
  test('characters outside A-Za-z0-9_- and runs of underscores become -', () => {
    expect(sanitizeNamePart('git hub.v2', 'server')).toBe('git-hub-v2');
    expect(sanitizeNamePart('a__b___c', 'tool')).toBe('a-b-c');
    expect(mcpToolName('fx', 'read_file')).toBe('fx__read_file');
  });

  test('a server ending or a tool starting with _ cannot blur the one __ separator', () => {
    expect(sanitizeNamePart('fx_', 'server')).toBe('fx-');
    expect(mcpToolName('fx', '_private')).toBe('fx__-private');
  });
});

describe('include / exclude filters', () => {
  test('an empty include list takes every tool; wildcards match; exclude wins', () => {
    expect(createToolFilter([], []).accepts('anything')).toBe(true);
    const filter = createToolFilter(['read_*', 'list?'], ['read_secret']);
    expect(['read_file', 'read_secret', 'lists', 'list', 'write'].filter((name) => filter.accepts(name))).toEqual(['read_file', 'lists']);
  });
});

describe('inputSchema becomes the catalog parameters', () => {
  test('type object is added when missing; $schema and $id are dropped; everything else passes through', () => {
    const result = toToolParameters({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'urn:x', properties: { q: { type: 'string', minLength: 1 } }, required: ['q'], description: 'search' });
    expect(result).toEqual({ parameters: { type: 'object', properties: { q: { type: 'string', minLength: 1 } }, required: ['q'], description: 'search' } });
  });

  test('a non-object type is replaced by object and reported; boolean property schemas keep their meaning', () => {
    const result = toToolParameters({ type: 'string', properties: { any: true, never: false } });
    expect(result.parameters).toEqual({ type: 'object', properties: { any: {}, never: { not: {} } } });
    expect(result.problem).toContain('inputSchema.type is "string"');
  });
});

describe('config defaults and resolution', () => {
  test('timeoutMs defaults to 60000 per call, a server may override it; connectTimeoutMs defaults to 30000', () => {
    const settings = readMcpConfig({ servers: { a: { command: 'srv' }, b: { url: 'https://example.com/mcp', timeoutMs: 5 } } }, {});
    expect(settings.timeoutMs).toBe(60_000);
    expect(settings.connectTimeoutMs).toBe(30_000);
    expect(settings.servers.map((server) => [server.name, server.timeoutMs, server.transport.kind])).toEqual([
      ['a', 60_000, 'stdio'],
      ['b', 5, 'http'],
    ]);
  });

  test('env and header values may be strings, {value} or {valueFrom: {env}}', () => {
    const settings = readMcpConfig(
      { servers: { a: { command: 'srv', env: { A: 'plain', B: { value: 'given' }, C: { valueFrom: { env: 'FROM_ENV' } } } }, b: { url: 'http://127.0.0.1/mcp', headers: { X: { valueFrom: { env: 'FROM_ENV' } } } } } },
      { FROM_ENV: 'found' },
    );
    const [a, b] = settings.servers;
    expect(a?.transport).toMatchObject({ kind: 'stdio', env: { A: 'plain', B: 'given', C: 'found' } });
    expect(b?.transport).toMatchObject({ kind: 'http', headers: { X: 'found' } });
  });

  test('no config at all means no servers', () => {
    expect(readMcpConfig(undefined, {}).servers).toEqual([]);
  });

  test('the defaults written in extension.yaml are a valid config', () => {
    const doc: unknown = parseYaml(readFileSync(join(import.meta.dir, '../../bundles/base/extensions/mcp/extension.yaml'), 'utf8'));
    const config = isJsonObject(doc) && isJsonObject(doc.spec) && isJsonObject(doc.spec.config) ? doc.spec.config : undefined;
    expect(config).toBeDefined();
    expect(readMcpConfig(config, {})).toMatchObject({ servers: [], timeoutMs: 60_000, connectTimeoutMs: 30_000 });
  });
});
