/**
 * `--watch` (SPEC.md §2.8): what a new, valid configuration restarts. The processes of agents and
 * connections whose plan changed restart (all of them when the swarm itself changed), those that
 * were removed stop, and one that could not start gets another chance with whatever changed. History
 * is kept: a restart is not a fresh start.
 */
import type { RootLogger } from '../../shared/logger.ts';
import type { OrchestratorCore } from './orchestrator-core.ts';
import type { SwarmConfig } from './swarm-config.ts';

export async function applyConfigChange(core: OrchestratorCore, previous: SwarmConfig, next: SwarmConfig, logger: RootLogger): Promise<void> {
  const grace = next.swarm.shutdownGracePeriodMs;
  const everything = previous.swarmFingerprint !== next.swarmFingerprint;
  const { supervisor } = core;
  // Warm processes carry the old environment (env files may have changed) and the old tool
  // modules: replaced before any restart below takes one.
  core.pool.recycle();
  const stops: Array<Promise<unknown>> = [];
  for (const proc of supervisor.list()) {
    const removed = proc.kind === 'agent' ? !next.agents.has(proc.name) : !next.connectionFingerprints.has(proc.name);
    const fingerprints = proc.kind === 'agent' ? [previous.agentFingerprints, next.agentFingerprints] : [previous.connectionFingerprints, next.connectionFingerprints];
    const changed = everything || fingerprints[0]?.get(proc.name) !== fingerprints[1]?.get(proc.name);
    if (removed) stops.push(supervisor.stop(proc, grace, 'config_change', false));
    else if (changed || proc.status === 'failed') stops.push(core.restart((p) => p === proc, 'config_change'));
  }
  logger.info({ restarting: stops.length, swarmChanged: everything }, 'bundle reloaded');
  await Promise.all(stops);
}
