/**
 * One configured MCP server: an SDK `Client` over stdio (a child process) or streamable HTTP,
 * (re)connected on demand. After every connect, and on `notifications/tools/list_changed`, the
 * full tool list is handed to `onTools`. A call to a server that died reconnects first; a call
 * that certainly did not reach the server is sent once more after one reconnect; anything else
 * fails with a coded error (call-failure.ts) and the next call reconnects.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { ProcessSandbox } from '../../../../shared/types/sandbox.ts';
import type { Logger } from '../../../../shared/types/tools.ts';
import { callFailure, causeMessage, classifyFailure } from './call-failure.ts';
import type { McpServerSettings } from './mcp-config.ts';
import { McpExtensionError, messageOf } from './mcp-error.ts';
import { serverLaunch } from './server-sandbox.ts';
import type { CallToolReply } from './tool-result.ts';

const CLIENT_VERSION = '0.1.0';
const STDERR_TAIL_LINES = 8;
const STDERR_LINE_LIMIT = 300;
const MAX_LIST_PAGES = 100;
/** A failed server is retried at turn start no sooner than this after its n-th failure: min(1 s·2^(n−1), 5 min). */
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 300_000;
/** How long a closing HTTP session may take to say goodbye (DELETE) before the transport is dropped. */
const TERMINATE_SESSION_MS = 2_000;

interface Live {
  client: Client;
  transport: StdioClientTransport | StreamableHTTPClientTransport;
}

export interface ServerConnectionOptions {
  settings: McpServerSettings;
  connectTimeoutMs: number;
  logger: Logger;
  /** MCP clientInfo.name sent in `initialize`. */
  clientName: string;
  /** The agent's sandbox, which stdio servers run in (server-sandbox.ts). */
  sandbox?: ProcessSandbox;
  /** The server's complete current tool list, after each connect and each list_changed refresh. */
  onTools(connection: McpServerConnection, tools: Tool[]): void;
}

export class McpServerConnection {
  readonly settings: McpServerSettings;
  private live: Live | undefined;
  private pending: Promise<Live> | undefined;
  private closed = false;
  private readonly stderrTail: string[] = [];
  private failures = 0;
  private nextAttemptAt = 0;
  private listedOnce = false;
  /** The running list_changed refresh, and whether another notification came in meanwhile. */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;

  constructor(private readonly options: ServerConnectionOptions) {
    this.settings = options.settings;
  }

  get name(): string {
    return this.settings.name;
  }

  /** Pid of the stdio server process while it runs. */
  get pid(): number | undefined {
    const transport = this.live?.transport;
    return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
  }

  /** A server that never connected is retried at turn start, after a backoff (its tools are unknown until then). */
  get wantsStartRetry(): boolean {
    return !this.closed && !this.listedOnce && this.live === undefined && this.pending === undefined && Date.now() >= this.nextAttemptAt;
  }

  /** Connects and reports the outcome in the log; never throws (a missing server must not stop the agent). */
  async tryConnect(): Promise<boolean> {
    try {
      await this.connect();
      return true;
    } catch (error) {
      this.options.logger.warn(
        { code: McpExtensionError.isInstance(error) ? error.code : 'E_MCP_UNAVAILABLE', server: this.name, ...this.target(), failures: this.failures, error: messageOf(error) },
        `${messageOf(error)} Its tools are missing until it connects; retried at a later turn.`,
      );
      return false;
    }
  }

  /** The live client, connecting first when there is none; rejects with E_MCP_UNAVAILABLE. */
  connect(): Promise<Live> {
    if (this.closed) return Promise.reject(new McpExtensionError('E_MCP_UNAVAILABLE', `MCP server '${this.name}' is shut down (the agent is stopping).`));
    if (this.live) return Promise.resolve(this.live);
    this.pending ??= this.open().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  async callTool(toolName: string, args: JsonObject, signal?: AbortSignal): Promise<CallToolReply> {
    const at = { server: this.name, tool: toolName, timeoutMs: this.settings.timeoutMs, stderrTail: this.stderrTail };
    // Connecting a dead server here is this call's one reconnect; a second failure is E_MCP_UNAVAILABLE.
    let reconnected = this.live === undefined;
    let live = await this.connect();
    for (;;) {
      try {
        const reply = await live.client.callTool({ name: toolName, arguments: args }, undefined, { timeout: this.settings.timeoutMs, ...(signal ? { signal } : {}) });
        // A list_changed sent during the call (a tool that adds tools) is applied before the model's next step.
        if (this.refreshing) await this.refreshing;
        return reply;
      } catch (error) {
        const kind = classifyFailure(error, signal);
        if (kind === 'aborted') throw signal?.reason ?? error;
        // The exit's last stderr lines may still be in flight behind the close event.
        if (kind === 'closed') await new Promise((resolve) => setImmediate(resolve));
        if (kind === 'undelivered' || kind === 'closed' || kind === 'broken') await this.drop(live, kind === 'undelivered');
        if (kind === 'undelivered' && !reconnected) {
          reconnected = true;
          live = await this.connect();
          continue;
        }
        throw callFailure(kind, error, at);
      }
    }
  }

  /** Ends the session and the server process (stdin closed, then SIGTERM, then SIGKILL: the SDK's close). */
  async close(): Promise<void> {
    this.closed = true;
    const live = this.live ?? (await this.pending?.catch(() => undefined));
    this.live = undefined;
    if (!live) return;
    if (live.transport instanceof StreamableHTTPClientTransport) {
      const transport = live.transport;
      await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, TERMINATE_SESSION_MS).unref())]);
    }
    await live.client.close().catch(() => {});
  }

  /** Synchronous last resort when the agent process exits without close(): SIGTERM the stdio server. */
  killNow(): void {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }

  private async open(): Promise<Live> {
    const transport = this.createTransport();
    const client = new Client({ name: this.options.clientName, version: CLIENT_VERSION }, { capabilities: {} });
    client.onclose = () => this.onClosed(client);
    client.onerror = (error) => this.options.logger.debug({ server: this.name, error: messageOf(error) }, `MCP server '${this.name}': transport error`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.scheduleRefresh(client));
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
      const tools = await this.listTools(client);
      const live: Live = { client, transport };
      this.live = live;
      this.failures = 0;
      this.listedOnce = true;
      this.options.logger.info({ server: this.name, ...this.target(), serverPid: this.pid, tools: tools.length }, `MCP server '${this.name}' connected`);
      this.options.onTools(this, tools);
      return live;
    } catch (error) {
      // A started process that failed to initialise must not linger.
      await client.close().catch(() => {});
      this.failures += 1;
      this.nextAttemptAt = Date.now() + Math.min(RETRY_BASE_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
      const stderr = this.stderrTail.length > 0 ? ` Its last stderr lines: ${this.stderrTail.join(' | ')}` : '';
      throw new McpExtensionError('E_MCP_UNAVAILABLE', `MCP server '${this.name}' (${this.describeTarget()}) could not be connected: ${causeMessage(error)}.${stderr}`, {
        suggestion: `Check servers.${this.name} in the mcp extension config (command, args, cwd, url); the server is tried again on the next call.`,
        cause: error,
      });
    }
  }

  private createTransport(): Live['transport'] {
    const transport = this.settings.transport;
    if (transport.kind === 'http') {
      return new StreamableHTTPClientTransport(transport.url, { requestInit: { headers: transport.headers } });
    }
    // The SDK gives the child only a safe default environment (HOME, PATH, …) plus `env`: the
    // agent's own secrets are not inherited by third-party servers.
    const launch = serverLaunch(transport, this.options.sandbox, this.options.logger);
    const stdio = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      stderr: 'pipe',
      ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
    });
    stdio.stderr?.on('data', (chunk: Buffer | string) => this.onStderr(String(chunk)));
    return stdio;
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.options.connectTimeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** Coalesces list_changed bursts: one listing at a time, repeated once if more notifications came. */
  private scheduleRefresh(client: Client): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refreshTools(client);
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
  }

  private async refreshTools(client: Client): Promise<void> {
    try {
      const tools = await this.listTools(client);
      if (this.live?.client === client) this.options.onTools(this, tools);
    } catch (error) {
      this.options.logger.warn({ code: 'E_MCP_LIST_TOOLS', server: this.name, error: messageOf(error) }, `MCP server '${this.name}': cannot refresh its tool list after list_changed`);
    }
  }

  private onClosed(client: Client): void {
    if (this.live?.client !== client) return;
    this.live = undefined;
    if (this.closed) return;
    this.options.logger.warn(
      { code: 'E_MCP_SERVER_CLOSED', server: this.name, ...this.target(), stderr: [...this.stderrTail] },
      `MCP server '${this.name}' closed the connection; it is reconnected on the next call`,
    );
  }

  /** Forgets a broken connection; the next connect() starts a new one. */
  private async drop(live: Live, wait: boolean): Promise<void> {
    if (this.live === live) this.live = undefined;
    const closing = live.client.close().catch(() => {});
    if (wait) await closing;
  }

  private onStderr(text: string): void {
    for (const line of text.split('\n')) {
      const trimmed = line.trim();
      if (trimmed === '') continue;
      this.options.logger.debug({ server: this.name, stream: 'stderr' }, trimmed);
      this.stderrTail.push(trimmed.length > STDERR_LINE_LIMIT ? `${trimmed.slice(0, STDERR_LINE_LIMIT)}…` : trimmed);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    }
  }

  private target(): { transport: 'stdio'; command: string } | { transport: 'http'; url: string } {
    const transport = this.settings.transport;
    // Never log env or headers: they may hold secrets (SPEC.md §1.2).
    return transport.kind === 'stdio' ? { transport: 'stdio', command: transport.command } : { transport: 'http', url: publicUrl(transport.url) };
  }

  private describeTarget(): string {
    const transport = this.settings.transport;
    return transport.kind === 'stdio' ? `stdio: ${[transport.command, ...transport.args].join(' ')}` : `streamable HTTP: ${publicUrl(transport.url)}`;
  }
}

/** The URL without user info and query, which may carry credentials. */
function publicUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
