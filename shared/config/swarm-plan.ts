/** SwarmPlan: member agents, entry agent and policy with defaults (ARCHITECTURE §5, SPEC.md §1.2). */
import type { LifecyclePlan, LoadedBundle, SwarmPlan } from '../types/bundle.ts';
import { DEFAULT_FSYNC_MODE } from '../durability/fsync-policy.ts';
import { DEFAULT_INBOX_COMPACT_LINES, DEFAULT_RUNTIME_EVENTS_MAX_AGE_HOURS, DEFAULT_RUNTIME_EVENTS_MAX_BYTES } from '../durability/rotating-log.ts';
import { workspaceIdFor } from '../state-paths.ts';
import { DEFAULT_INTER_AGENT_PLAN } from '../inter-agent-scope.ts';
import { buildBudgetPlan } from './budget-plan.ts';
import { assertLoadable, findSwarm, resolveIn } from './plan-resolver.ts';

export const DEFAULT_MAX_STEPS_PER_TURN = 32;
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 300;
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 30;
export const DEFAULT_TTL_SECONDS = 300;

export function buildSwarmPlan(bundle: LoadedBundle, swarmName: string): SwarmPlan {
  assertLoadable(bundle);
  const { resource, spec } = findSwarm(bundle, swarmName);
  const entry = resolveIn(bundle, resource, spec.entryAgent, ['spec', 'entryAgent']).target;
  const members = spec.agents.map((item, i) => resolveIn(bundle, resource, item, ['spec', 'agents', i]).target);
  const agents = members.map((agent) => agent.name);
  const instanceKey = spec.instanceKey ?? resource.name;
  const budget = buildBudgetPlan(bundle, members, spec.policy?.budget);
  const retention = spec.policy?.durability?.retention;
  const plan: SwarmPlan = {
    name: resource.name,
    instanceKey,
    workspaceId: workspaceIdFor(instanceKey),
    entryAgent: entry.name,
    agents,
    maxStepsPerTurn: spec.policy?.maxStepsPerTurn ?? DEFAULT_MAX_STEPS_PER_TURN,
    shutdownGracePeriodMs: (spec.policy?.shutdown?.gracePeriodSeconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS) * 1000,
    startupTimeoutMs: (spec.policy?.startupTimeoutSeconds ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1000,
    durability: {
      fsync: spec.policy?.durability?.fsync ?? DEFAULT_FSYNC_MODE,
      retention: {
        runtimeEventsMaxBytes: retention?.runtimeEventsMaxBytes ?? DEFAULT_RUNTIME_EVENTS_MAX_BYTES,
        runtimeEventsMaxAgeMs: (retention?.runtimeEventsMaxAgeHours ?? DEFAULT_RUNTIME_EVENTS_MAX_AGE_HOURS) * 3_600_000,
        inboxCompactLines: retention?.inboxCompactLines ?? DEFAULT_INBOX_COMPACT_LINES,
      },
    },
    lifecycle: lifecyclePlan(spec.policy?.lifecycle),
    interAgent: {
      instanceKeys: spec.policy?.interAgent?.instanceKeys ?? DEFAULT_INTER_AGENT_PLAN.instanceKeys,
      sharedInstanceKeys: spec.policy?.interAgent?.sharedInstanceKeys ?? [],
      maxHops: spec.policy?.interAgent?.maxHops ?? DEFAULT_INTER_AGENT_PLAN.maxHops,
      maxMessagesPerTrace: spec.policy?.interAgent?.maxMessagesPerTrace ?? DEFAULT_INTER_AGENT_PLAN.maxMessagesPerTrace,
    },
  };
  if (budget) plan.budget = budget;
  return plan;
}

function lifecyclePlan(lifecycle: { ttlSeconds?: number; gcGraceSeconds?: number; maxLiveProcesses?: number } | undefined): LifecyclePlan {
  const plan: LifecyclePlan = { ttlMs: (lifecycle?.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000 };
  if (lifecycle?.gcGraceSeconds !== undefined) plan.gcGraceMs = lifecycle.gcGraceSeconds * 1000;
  if (lifecycle?.maxLiveProcesses !== undefined) plan.maxLiveProcesses = lifecycle.maxLiveProcesses;
  return plan;
}
