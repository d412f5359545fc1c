/**
 * Command lines, environments and assignments of the children. Every child starts bare (no
 * identity on its command line, no plan in its environment: a large plan would overflow it) and
 * receives its plan over IPC in `runtime.assign`. The API token never reaches a child.
 */
import { join } from 'node:path';
import { AGENT_PRELOAD_ENV, agentPreloadOf } from '../../shared/ipc/agent-preload.ts';
import { PACKAGE_ROOT } from '../../shared/package-root.ts';
import { agentEntry } from '../process/agent-bundle.ts';
import { agentEngineEnv } from '../process/agent-engine-options.ts';
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
  return env;
}

const preloads = new WeakMap<SwarmConfig, string>();

/** A bare agent process: cold starts and the warm pool launch the same command. */
export function agentLaunchOptions(config: SwarmConfig, output: LaunchOptions['output']): LaunchOptions {
  let preload = preloads.get(config);
  if (preload === undefined) {
    preload = JSON.stringify(agentPreloadOf(config.agents.values(), config.swarm));
    preloads.set(config, preload);
  }
  return { command: [process.execPath, agentEntry()], env: { ...agentEngineEnv(), ...childEnv(config), [AGENT_PRELOAD_ENV]: preload }, stdin: 'ignore', output };
}

export function agentSpawnSpec(config: SwarmConfig, context: SpawnContext, agent: string, instanceKey: string): SpawnSpec {
  const agentPlan = config.agents.get(agent);
  if (!agentPlan) throw new Error(`agent '${agent}' is not part of swarm '${config.swarm.name}'`);
  const { output: _output, ...launch } = agentLaunchOptions(config, 'inherit');
  return {
    launch,
    assignment: { role: 'agent', agent, instanceKey, stateRoot: context.stateRoot, agentPlan, swarmPlan: config.swarm, ...(context.replicateState ? { replicateState: true } : {}) },
  };
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
