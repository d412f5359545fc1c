/**
 * The plan of every agent of every swarm, built without stopping at a missing environment
 * variable (those are recorded in `issues`): for checks that look at what agents would run,
 * such as `goondan doctor` finding each MCP server command.
 */
import type { AgentPlan, LoadedBundle } from '../types/bundle.ts';
import { planAgent } from './agent-plan.ts';
import { EnvIssues } from './env-issues.ts';
import { swarmsOf } from './plan-resolver.ts';
import { buildSwarmPlan } from './swarm-plan.ts';

export function allAgentPlans(bundle: LoadedBundle, env: Record<string, string | undefined>, issues: EnvIssues = new EnvIssues()): Array<{ swarm: string; plan: AgentPlan }> {
  return swarmsOf(bundle).flatMap((swarm) => buildSwarmPlan(bundle, swarm.name).agents.map((agent) => ({ swarm: swarm.name, plan: planAgent(bundle, swarm.name, agent, env, issues) })));
}
