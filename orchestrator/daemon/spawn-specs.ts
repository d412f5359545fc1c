/**
 * Command lines and environments of the children. Agents get their resolved plan in the
 * environment (validated on their side) so a spawn skips YAML parsing; the API token never
 * reaches a child.
 */
import { join, resolve } from 'node:path';
import type { JsonObject } from '../../shared/types/json.ts';
import type { SpawnChildOptions } from '../process/spawned-child.ts';
import type { SpawnSpec } from '../process/supervisor.ts';
import type { SwarmConfig } from './swarm-config.ts';

const AGENT_MAIN = join(import.meta.dir, '../../agent-process/main.ts');
const CONNECTOR_MAIN = join(import.meta.dir, '../connectors/connector-host.ts');

export interface SpawnContext {
  bundlePath: string;
  stateRoot: string;
  /** Log file for children whose stdout is the user's terminal (the interactive cli connector). */
  logFile?: string;
}

function childEnv(config: SwarmConfig, extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...config.env, ...extra };
  delete env.GOONDAN_API_TOKEN;
  return env;
}

export function agentSpawnSpec(config: SwarmConfig, context: SpawnContext, agent: string, instanceKey: string): SpawnSpec {
  const plan = config.agents.get(agent);
  const extra: Record<string, string> = { GOONDAN_SWARM_PLAN: JSON.stringify(config.swarm) };
  if (plan) extra.GOONDAN_AGENT_PLAN = JSON.stringify(plan);
  const args: JsonObject = { bundleDir: resolve(context.bundlePath), agentName: agent, instanceKey, stateRoot: context.stateRoot, swarm: config.swarm.name };
  return {
    // Plans are plain JSON data; the round trip turns the typed plans into JsonValues.
    ...(plan ? { assignment: JSON.parse(JSON.stringify({ args, agentPlan: plan, swarmPlan: config.swarm })) } : {}),
    command: [
      process.execPath,
      AGENT_MAIN,
      '--bundle-dir',
      resolve(context.bundlePath),
      '--agent-name',
      agent,
      '--instance-key',
      instanceKey,
      '--state-root',
      context.stateRoot,
      '--swarm',
      config.swarm.name,
    ],
    env: childEnv(config, extra),
    stdin: 'ignore',
  };
}

/** A warm agent process: the agent entry with `--pool` and the shared child environment. */
export function poolSpawnOptions(config: SwarmConfig, output: 'inherit' | number): SpawnChildOptions {
  return { command: [process.execPath, AGENT_MAIN, '--pool'], env: childEnv(config, {}), stdin: 'ignore', output };
}

export function connectorSpawnSpec(config: SwarmConfig, context: SpawnContext, connectionName: string): SpawnSpec {
  const plan = config.connections.find((c) => c.name === connectionName);
  const interactive = plan?.connectorName === 'cli';
  const extra: Record<string, string> = { GOONDAN_CONNECTION_PLAN: JSON.stringify(plan ?? null) };
  if (interactive && context.logFile) extra.GOONDAN_LOG_FILE = context.logFile;
  return {
    command: [process.execPath, CONNECTOR_MAIN, '--connection', connectionName],
    env: childEnv(config, extra),
    stdin: interactive ? 'inherit' : 'ignore',
    ...(interactive ? { output: 'inherit' as const } : {}),
  };
}
