/**
 * A stdio MCP server runs in the agent's sandbox (issue 9) unless its config says `sandbox: false`:
 * the server's own `sandbox` settings (mode, network, readOnlyPaths) lie over the agent's. The
 * server is long-lived, so the per-process CPU-seconds limit of tool calls does not apply to it.
 * Inside the sandbox it starts in its `cwd` (made writable) or the workspace, with HOME = workspace.
 */
import { mkdirSync } from 'node:fs';
import type { ProcessSandbox } from '../../../../shared/types/sandbox.ts';
import type { Logger } from '../../../../shared/types/tools.ts';
import { prepareLaunch } from '../../sandbox/sandbox-launch.ts';
import type { McpTransportSettings } from './mcp-config.ts';

type StdioSettings = Extract<McpTransportSettings, { kind: 'stdio' }>;

export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** `agent` is absent on engines older than the sandbox: the server then runs as configured. */
export function serverLaunch(settings: StdioSettings, agent: ProcessSandbox | undefined, logger: Logger): ServerLaunch {
  const direct: ServerLaunch = { command: settings.command, args: settings.args, env: settings.env, ...(settings.cwd !== undefined ? { cwd: settings.cwd } : {}) };
  if (agent === undefined) return direct;
  const own = settings.sandbox;
  const sandbox: ProcessSandbox = {
    ...agent,
    mode: own.mode ?? agent.mode,
    network: own.network ?? agent.network,
    limits: { ...agent.limits, cpuSeconds: 0 },
    readOnlyPaths: [...agent.readOnlyPaths, ...(own.readOnlyPaths ?? [])],
  };
  mkdirSync(sandbox.workdir, { recursive: true });
  const cwd = settings.cwd ?? sandbox.workdir;
  const launch = prepareLaunch({ sandbox, cwd, logger, ...(settings.cwd !== undefined ? { writablePaths: [settings.cwd] } : {}) });
  const launched = launch.wrap([settings.command, ...settings.args], { HOME: sandbox.workdir, ...settings.env });
  const [command = settings.command, ...args] = launched.argv;
  if (!launch.sandboxed) return { ...direct, command, args };
  return { command, args, env: launched.env, cwd };
}
