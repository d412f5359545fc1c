/**
 * The MCP tools this extension offers: each server's current tool list registered through
 * `api.tools.register` as `{server}__{tool}` with `source: {type: 'mcp', …}` (tool spec §12–§13).
 * A refreshed list re-registers every tool (a later registration of a name wins, SPEC.md §4.3);
 * tools a server no longer lists cannot be unregistered, so `isStale` lets a step middleware
 * drop them from the catalog.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { ToolCatalogItem } from '../../../../shared/types/tools.ts';
import { messageOf } from './mcp-error.ts';
import { createToolFilter, type ToolFilter } from './tool-filter.ts';
import { mcpToolName, PROVIDER_NAME_LIMIT } from './tool-naming.ts';
import { toToolParameters } from './tool-parameters.ts';
import { mapToolResult } from './tool-result.ts';
import type { McpServerConnection } from './server-connection.ts';

export class McpToolSet {
  /** Catalog names each server offers now. */
  private readonly offered = new Map<string, Set<string>>();
  private readonly filters = new Map<string, ToolFilter>();
  /** Warnings already logged (a refresh must not repeat them). */
  private readonly warned = new Set<string>();

  constructor(private readonly api: ExtensionApi) {}

  /** Registers `tools` as the complete current list of `connection`'s server. */
  update(connection: McpServerConnection, tools: readonly Tool[]): void {
    const { settings } = connection;
    const filter = this.filterOf(connection);
    const names = new Set<string>();
    for (const tool of tools) {
      if (!filter.accepts(tool.name)) continue;
      const name = mcpToolName(settings.toolPrefix, tool.name);
      const at = { server: settings.name, mcpTool: tool.name, tool: name };
      if (names.has(name)) {
        this.warnOnce(`clash:${name}:${tool.name}`, { code: 'W_MCP_TOOL_NAME_CLASH', ...at }, `MCP tool '${tool.name}' of server '${settings.name}' maps to '${name}', which another of its tools already uses; it is not offered`);
        continue;
      }
      if (name !== `${settings.toolPrefix}__${tool.name}`) {
        this.warnOnce(`renamed:${name}`, { code: 'W_MCP_TOOL_NAME_MAPPED', ...at }, `MCP tool '${tool.name}' of server '${settings.name}' is offered as '${name}': tool names allow only A-Z a-z 0-9 _ - and no '__' inside a part (tool spec §5.2)`);
      }
      if (name.length > PROVIDER_NAME_LIMIT) {
        this.warnOnce(`long:${name}`, { code: 'W_MCP_TOOL_NAME_LONG', ...at }, `Tool name '${name}' is longer than ${PROVIDER_NAME_LIMIT} characters; some model providers reject it (exclude the tool or shorten the server name)`);
      }
      const { parameters, problem } = toToolParameters(tool.inputSchema);
      if (problem !== undefined) this.warnOnce(`schema:${name}`, { code: 'W_MCP_TOOL_SCHEMA', ...at }, `MCP tool '${tool.name}' of server '${settings.name}': ${problem}`);
      const item: ToolCatalogItem = {
        name,
        description: tool.description ?? tool.title ?? `Tool '${tool.name}' of the MCP server '${settings.name}'.`,
        parameters,
        source: { type: 'mcp', name: settings.name, mcp: { extensionName: this.api.name, serverName: settings.name } },
      };
      // MCP says annotations are hints from an untrusted server: honoured only when the operator says so.
      if (settings.trustAnnotations && tool.annotations?.readOnlyHint === true) item.readOnly = true;
      const mcpName = tool.name;
      try {
        this.api.tools.register(item, async (ctx, input) => mapToolResult(await connection.callTool(mcpName, input, ctx.signal), { server: settings.name, tool: mcpName }));
      } catch (error) {
        // One tool the engine refuses (e.g. an inputSchema ajv cannot compile) must not cost the server its other tools.
        const errorCode: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
        const fields = { code: 'W_MCP_TOOL_REJECTED', ...at, error: messageOf(error), ...(typeof errorCode === 'string' ? { errorCode } : {}) };
        this.warnOnce(`rejected:${name}`, fields, `MCP tool '${tool.name}' of server '${settings.name}' is not offered: ${messageOf(error)}`);
        continue;
      }
      names.add(name);
    }
    this.offered.set(settings.name, names);
  }

  /** An item this extension registered earlier whose server no longer lists the tool. */
  isStale(item: ToolCatalogItem): boolean {
    const source = item.source;
    if (source?.type !== 'mcp' || source.mcp?.extensionName !== this.api.name) return false;
    const offered = this.offered.get(source.mcp.serverName ?? source.name);
    return offered !== undefined && !offered.has(item.name);
  }

  private filterOf(connection: McpServerConnection): ToolFilter {
    let filter = this.filters.get(connection.name);
    if (!filter) {
      filter = createToolFilter(connection.settings.include, connection.settings.exclude);
      this.filters.set(connection.name, filter);
    }
    return filter;
  }

  private warnOnce(key: string, fields: Record<string, string>, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.api.logger.warn(fields, message);
  }
}
