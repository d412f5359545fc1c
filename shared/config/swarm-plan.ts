/** SwarmPlan: member agents, entry agent and policy with defaults (ARCHITECTURE §5, SPEC.md §1.2). */
import type { LifecyclePlan, LoadedBundle, SwarmPlan } from '../types/bundle.ts';
import { workspaceIdFor } from '../state-paths.ts';
import { assertLoadable, findSwarm, resolveIn } from './plan-resolver.ts';

export const DEFAULT_MAX_STEPS_PER_TURN = 32;
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 300;
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 30;
export const DEFAULT_TTL_SECONDS = 300;

export function buildSwarmPlan(bundle: LoadedBundle, swarmName: string): SwarmPlan {
  assertLoadable(bundle);
  const { resource, spec } = findSwarm(bundle, swarmName);
  const entry = resolveIn(bundle, resource, spec.entryAgent, ['spec', 'entryAgent']).target;
  const agents = spec.agents.map((item, i) => resolveIn(bundle, resource, item, ['spec', 'agents', i]).target.name);
  const instanceKey = spec.instanceKey ?? resource.name;
  return {
    name: resource.name,
    instanceKey,
    workspaceId: workspaceIdFor(instanceKey),
    entryAgent: entry.name,
    agents,
    maxStepsPerTurn: spec.policy?.maxStepsPerTurn ?? DEFAULT_MAX_STEPS_PER_TURN,
    shutdownGracePeriodMs: (spec.policy?.shutdown?.gracePeriodSeconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS) * 1000,
    startupTimeoutMs: (spec.policy?.startupTimeoutSeconds ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1000,
    lifecycle: lifecyclePlan(spec.policy?.lifecycle),
  };
}

function lifecyclePlan(lifecycle: { ttlSeconds?: number; gcGraceSeconds?: number; maxLiveProcesses?: number } | undefined): LifecyclePlan {
  const plan: LifecyclePlan = { ttlMs: (lifecycle?.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000 };
  if (lifecycle?.gcGraceSeconds !== undefined) plan.gcGraceMs = lifecycle.gcGraceSeconds * 1000;
  if (lifecycle?.maxLiveProcesses !== undefined) plan.maxLiveProcesses = lifecycle.maxLiveProcesses;
  return plan;
}
