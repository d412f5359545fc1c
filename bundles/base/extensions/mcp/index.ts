/**
 * mcp (issue 5, tool spec §12–§13, seed 004 §5.2): connects the MCP servers declared in `config`
 * — a stdio command or a streamable HTTP URL — with `@modelcontextprotocol/sdk`, and offers their
 * tools as `{server}__{tool}` with `source: {type: 'mcp'}`. A server that cannot be reached at
 * start is logged and skipped (the agent keeps running with the others) and retried at later turn
 * starts; a server that dies is reconnected by the next call; the servers are shut down with the
 * agent process.
 *
 * ```yaml
 * extensions:
 *   - ref: Extension/mcp
 *     config:
 *       servers:
 *         files: { command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"] }
 *         search: { url: "https://mcp.example.com/mcp", headers: { Authorization: { valueFrom: { env: SEARCH_TOKEN } } } }
 *       timeoutMs: 60000
 * ```
 */
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { JsonObject } from '../../../../shared/types/json.ts';
import { installExitGuard } from './exit-guard.ts';
import { readMcpConfig } from './mcp-config.ts';
import { McpToolSet } from './mcp-tool-set.ts';
import { McpServerConnection } from './server-connection.ts';

export async function register(api: ExtensionApi, config: JsonObject): Promise<void> {
  const settings = readMcpConfig(config);
  for (const { server, toolPrefix } of settings.renamedServers) {
    api.logger.warn(
      { code: 'W_MCP_SERVER_NAME_MAPPED', server, toolPrefix },
      `MCP server '${server}' offers its tools as '${toolPrefix}__…': tool names allow only A-Z a-z 0-9 _ - and no '__' inside a part (tool spec §5.2)`,
    );
  }

  const tools = new McpToolSet(api);
  const connections = settings.servers.map(
    (server) =>
      new McpServerConnection({
        settings: server,
        connectTimeoutMs: settings.connectTimeoutMs,
        logger: api.logger,
        clientName: `goondan-${api.name}`,
        ...(api.sandbox ? { sandbox: api.sandbox } : {}),
        onTools: (connection, list) => tools.update(connection, list),
      }),
  );

  const removeExitGuard = installExitGuard(connections);
  let shutdown: Promise<void> | undefined;
  const close = (): Promise<void> => {
    shutdown ??= Promise.allSettled(connections.map((connection) => connection.close())).then(() => removeExitGuard());
    return shutdown;
  };
  // onClose is optional in the ExtensionApi contract (older engines lack it); the exit guard covers those.
  if (typeof api.onClose === 'function') api.onClose(close);

  try {
    await Promise.all(connections.map((connection) => connection.tryConnect()));

    // Outer (low priority): a server that was down at start may be back; its tools join this turn's catalog.
    api.pipeline.register(
      'turn',
      async (ctx) => {
        const waiting = connections.filter((connection) => connection.wantsStartRetry);
        if (waiting.length > 0) await Promise.all(waiting.map((connection) => connection.tryConnect()));
        return ctx.next();
      },
      { priority: -50 },
    );
    api.pipeline.register('step', (ctx) => {
      if (ctx.toolCatalog.some((item) => tools.isStale(item))) ctx.toolCatalog = ctx.toolCatalog.filter((item) => !tools.isStale(item));
      return ctx.next();
    });
  } catch (error) {
    // register() failing is E_EXT_INIT: the agent stops, so the servers started so far must too.
    await close();
    throw error;
  }
}
