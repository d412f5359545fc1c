/**
 * What a bare agent process loads before it says `runtime.ready` (the orchestrator's
 * GOONDAN_AGENT_PRELOAD, JSON): the built-in tool and extension modules and the model providers
 * the swarm's agents use. A warm spare then serves its first message without loading modules.
 * Only built-in modules: user modules may do anything when imported, and a spare does not yet
 * know which agent it becomes.
 */
import { BASE_PACKAGE } from '../types/resources.ts';
import type { AgentPlan } from '../types/bundle.ts';
import { compiledValidator } from '../validation/compiled-validator.ts';

export const AGENT_PRELOAD_ENV = 'GOONDAN_AGENT_PRELOAD';

export interface AgentPreload {
  /** Absolute paths of entry modules. */
  modules: string[];
  /** `Model.spec.provider` values other than `mock`. */
  providers: string[];
}

export const isAgentPreload = compiledValidator<AgentPreload>({
  schema: {
    type: 'object',
    required: ['modules', 'providers'],
    properties: { modules: { type: 'array', items: { type: 'string' } }, providers: { type: 'array', items: { type: 'string' } } },
  },
});

export function agentPreloadOf(plans: Iterable<AgentPlan>): AgentPreload {
  const modules = new Set<string>();
  const providers = new Set<string>();
  for (const plan of plans) {
    // A tool without an entry module (HTTP exports only) has nothing to load.
    for (const part of [...plan.tools, ...plan.extensions]) if (part.packageName === BASE_PACKAGE && part.entryPath !== undefined) modules.add(part.entryPath);
    if (plan.model.provider !== 'mock') providers.add(plan.model.provider);
  }
  return { modules: [...modules].sort(), providers: [...providers].sort() };
}
