/**
 * Command lines, environments and assignments of the children. Every child starts bare (no
 * identity on its command line, no plan in its environment: a large plan would overflow it) and
 * receives its plan over IPC in `runtime.assign`. The API token never reaches a child.
 */
import { join } from 'node:path';
import { BASE_MODULE_BUILDS_ENV } from '../../shared/base-module-builds.ts';
import { AGENT_PRELOAD_ENV, agentPreloadOf } from '../../shared/ipc/agent-preload.ts';
import { PACKAGE_ROOT } from '../../shared/package-root.ts';
import { agentEntry } from '../process/agent-bundle.ts';
import { agentEngineEnv } from '../process/agent-engine-options.ts';
import { baseModuleBuilds } from '../process/base-module-builds.ts';
import type { LaunchOptions } from '../process/child-launcher.ts';
import type { SpawnSpec } from '../process/supervisor.ts';
import type { SwarmConfig } from './swarm-config.ts';

const CONNECTOR_MAIN = join(PACKAGE_ROOT, 'connector-process/main.ts');

export interface SpawnContext {
  bundlePath: string;
  stateRoot: string;
  /** Log file for children whose stdout is the user's terminal (the interactive cli connector). */
  logFile?: string;
  /** Cluster mode: agents ask for their state to be replicated before tool effects. */
  replicateState?: boolean;
}

function childEnv(config: SwarmConfig): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...config.env };
  delete env.GOONDAN_API_TOKEN;
  // Where the keys came from, so that agents hide the file from their tools' sandbox.
  if (config.envFile !== undefined) env.GOONDAN_ENV_FILE = config.envFile;
  return env;
}

/** Per configuration: every agent process of it starts with the same command and environment. */
const agentLaunches = new WeakMap<SwarmConfig, { entry: string; engine: Readonly<Record<string, string>>; builds: string | undefined; launch: Omit<LaunchOptions, 'output'> }>();

/** A bare agent process: cold starts and the warm pool launch the same command. */
export function agentLaunchOptions(config: SwarmConfig, output: LaunchOptions['output']): LaunchOptions {
  return { ...agentLaunchOf(config), output };
}

export function agentSpawnSpec(config: SwarmConfig, context: SpawnContext, agent: string, instanceKey: string): SpawnSpec {
  const agentPlan = config.agents.get(agent);
  if (!agentPlan) throw new Error(`agent '${agent}' is not part of swarm '${config.swarm.name}'`);
  return {
    launch: agentLaunchOf(config),
    assignment: { role: 'agent', agent, instanceKey, stateRoot: context.stateRoot, agentPlan, swarmPlan: config.swarm, ...(context.replicateState ? { replicateState: true } : {}) },
  };
}

/**
 * Built again only when the configuration, the entry (a build replaced or removed) or the engine
 * options change: a new instance — a warm spare's assignment, which does not even use it — must
 * not copy the daemon's environment on its way to the spare.
 */
function agentLaunchOf(config: SwarmConfig): Omit<LaunchOptions, 'output'> {
  const entry = agentEntry();
  const engine = agentEngineEnv();
  const builds = baseModuleBuilds();
  const cached = agentLaunches.get(config);
  if (cached?.entry === entry && cached.engine === engine && cached.builds === builds) return cached.launch;
  const preload = JSON.stringify(agentPreloadOf(config.agents.values(), config.swarm));
  const env = { ...engine, ...childEnv(config), [AGENT_PRELOAD_ENV]: preload, ...(builds ? { [BASE_MODULE_BUILDS_ENV]: builds } : {}) };
  const launch = { command: [process.execPath, entry], env, stdin: 'ignore' as const };
  agentLaunches.set(config, { entry, engine, builds, launch });
  return launch;
}

export function connectorSpawnSpec(config: SwarmConfig, context: SpawnContext, connectionName: string): SpawnSpec {
  const connection = config.connections.find((c) => c.name === connectionName);
  if (!connection) throw new Error(`connection '${connectionName}' is not part of the bundle`);
  const interactive = connection.connectorName === 'cli';
  return {
    launch: {
      command: [process.execPath, CONNECTOR_MAIN],
      env: childEnv(config),
      stdin: interactive ? 'inherit' : 'ignore',
      ...(interactive ? { output: 'inherit' as const } : {}),
    },
    assignment: { role: 'connector', connection, ...(interactive && context.logFile ? { logFile: context.logFile } : {}) },
  };
}
