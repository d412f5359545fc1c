/**
 * `validate` reports missing environment variables of used resources — every swarm's agents and
 * connections — as warnings: a bundle is validated in CI without its keys (SPEC.md §1.1).
 */
import type { ConfigProblem, LoadedBundle } from '../types/bundle.ts';
import { planAgent } from './agent-plan.ts';
import { ConfigError } from './config-error.ts';
import { planConnections } from './connection-plans.ts';
import { EnvIssues } from './env-issues.ts';
import { swarmsOf } from './plan-resolver.ts';
import { buildSwarmPlan } from './swarm-plan.ts';

export function collectEnvWarnings(bundle: LoadedBundle, env: Record<string, string | undefined>): ConfigProblem[] {
  const issues = new EnvIssues();
  for (const swarm of swarmsOf(bundle)) {
    try {
      for (const agent of buildSwarmPlan(bundle, swarm.name).agents) planAgent(bundle, swarm.name, agent, env, issues);
      planConnections(bundle, swarm.name, env, issues);
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      // Other plan problems surface when the plan is built; validate reports env only here.
    }
  }
  const seen = new Set<string>();
  return issues.issues
    .map((i) => i.problem)
    .filter((p) => {
      const key = `${p.file}:${p.line}:${p.column}:${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
