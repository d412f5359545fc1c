/**
 * Everything the daemon derives from the bundle at start and on every `--watch` reload: the
 * validated bundle, the swarm plan, one plan per agent (built up front so a missing API key fails
 * the start, not the first turn), the connection plans, and fingerprints that tell a reload which
 * processes it must restart (SPEC.md §2.8).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  buildAgentPlan,
  buildConnectionPlans,
  buildSwarmPlan,
  ConfigError,
  loadBundle,
  loadEnv,
  selectSwarm,
} from '../../shared/config/index.ts';
import type { AgentPlan, ConfigProblem, ConnectionPlan, LoadedBundle, SwarmPlan } from '../../shared/types/bundle.ts';

export interface SwarmConfig {
  bundle: LoadedBundle;
  env: Record<string, string>;
  swarm: SwarmPlan;
  agents: Map<string, AgentPlan>;
  connections: ConnectionPlan[];
  /** Per agent: plan + entry module sources; a change means the agent's processes restart. */
  agentFingerprints: Map<string, string>;
  connectionFingerprints: Map<string, string>;
  swarmFingerprint: string;
  /** `--env-file`, absolute: its keys are in the children's environment, the file itself is hidden from their tools. */
  envFile?: string;
}

export interface SwarmConfigOptions {
  bundlePath: string;
  swarmName?: string;
  envFile?: string;
  processEnv: Record<string, string | undefined>;
  /** Add a `cli` Connection to the entry agent when the bundle declares none (interactive run). */
  implicitCli?: boolean;
}

const BASE_CLI_CONNECTOR = join(import.meta.dir, '../../bundles/base/connectors/cli/index.ts');

/** The terminal conversation of an interactive `goondan run`: every line to the entry agent, key `cli`. */
function implicitCliConnection(swarmName: string): ConnectionPlan {
  return {
    name: 'cli',
    connectorName: 'cli',
    connectorEntryPath: BASE_CLI_CONNECTOR,
    events: [{ name: 'stdin_message' }],
    swarmName,
    config: {},
    secrets: {},
    rules: [],
  };
}

/** Loads and plans everything; throws ConfigError with every problem found. */
export async function loadSwarmConfig(options: SwarmConfigOptions): Promise<SwarmConfig> {
  const bundleDir = statSync(options.bundlePath).isDirectory() ? options.bundlePath : dirname(options.bundlePath);
  const env = loadEnv({ bundleDir, processEnv: options.processEnv, ...(options.envFile ? { envFile: options.envFile } : {}) });
  const bundle = await loadBundle(options.bundlePath, { env });
  if (bundle.errors.length > 0) throw new ConfigError(bundle.errors);
  const swarmName = selectSwarm(bundle, options.swarmName);
  const swarm = buildSwarmPlan(bundle, swarmName);
  const agents = new Map<string, AgentPlan>();
  const problems: ConfigProblem[] = [];
  for (const name of swarm.agents) {
    try {
      agents.set(name, buildAgentPlan(bundle, swarmName, name, env));
    } catch (error) {
      if (error instanceof ConfigError) problems.push(...error.problems);
      else throw error;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const connections = buildConnectionPlans(bundle, swarmName, env);
  if (options.implicitCli && !connections.some((c) => c.connectorName === 'cli')) connections.push(implicitCliConnection(swarmName));
  const agentFingerprints = new Map<string, string>();
  for (const [name, plan] of agents) {
    agentFingerprints.set(name, fingerprint(plan, [...plan.tools.flatMap((t) => (t.entryPath === undefined ? [] : [t.entryPath])), ...plan.extensions.map((e) => e.entryPath)]));
  }
  const connectionFingerprints = new Map<string, string>();
  for (const connection of connections) connectionFingerprints.set(connection.name, fingerprint(connection, [connection.connectorEntryPath]));
  return {
    bundle,
    env,
    swarm,
    agents,
    connections,
    agentFingerprints,
    connectionFingerprints,
    swarmFingerprint: fingerprint(swarm, []),
    ...(options.envFile !== undefined ? { envFile: resolve(options.envFile) } : {}),
  };
}

/**
 * Hash of a plan plus the source files next to its entry modules (an entry usually imports
 * helpers from its own folder; imports from elsewhere are not tracked).
 */
function fingerprint(plan: unknown, entryPaths: string[]): string {
  const hash = createHash('sha256').update(JSON.stringify(plan));
  for (const dir of [...new Set(entryPaths.map((p) => dirname(p)))].sort()) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/\.(ts|js|mjs|json)$/.test(name)) continue;
      try {
        hash.update(name).update(readFileSync(join(dir, name)));
      } catch {
        // vanished between listing and reading: the next reload sees the final state
      }
    }
  }
  return hash.digest('hex');
}
