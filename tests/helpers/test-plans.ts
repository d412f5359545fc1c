/** A minimal swarm plan that passes the plan schema, shared by the engine and orchestrator test fixtures. */
import type { SwarmPlan } from '../../shared/types/bundle.ts';

/** Its entry agent is the first of `agents`; nothing is fsynced. */
export function testSwarmPlan(name: string, agents: string[], maxStepsPerTurn = 8): SwarmPlan {
  return {
    name,
    instanceKey: name,
    workspaceId: name,
    entryAgent: agents[0] ?? 'a',
    agents,
    maxStepsPerTurn,
    shutdownGracePeriodMs: 1_000,
    startupTimeoutMs: 10_000,
    durability: { fsync: 'never', retention: { runtimeEventsMaxBytes: 16 * 1024 * 1024, runtimeEventsMaxAgeMs: 7 * 24 * 3_600_000, inboxCompactLines: 200 } },
    lifecycle: { ttlMs: 300_000 },
    interAgent: { instanceKeys: 'scoped', sharedInstanceKeys: [], maxHops: 32, maxMessagesPerTrace: 256 },
  };
}
