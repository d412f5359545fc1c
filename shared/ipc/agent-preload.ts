/**
 * What a bare agent process loads before it says `runtime.ready` (the orchestrator's
 * GOONDAN_AGENT_PRELOAD, JSON): the built-in tool and extension modules and the model providers
 * the swarm's agents use. A warm spare then serves its first message without loading modules.
 * Only built-in modules: user modules may do anything when imported, and a spare does not yet
 * know which agent it becomes.
 *
 * It also carries a rehearsal: a plan a warm spare builds an engine for, and runs one turn of,
 * in a scratch directory before it says ready (agent-process/shell/agent-rehearsal.ts). Only the
 * swarm's built-in tools, no extension, the `mock` model: nothing in it reaches the world.
 */
import { BASE_PACKAGE } from '../types/resources.ts';
import type { AgentPlan, ModelPlan, SwarmPlan, ToolPlan } from '../types/bundle.ts';
import { compiledValidator } from '../validation/compiled-validator.ts';

export const AGENT_PRELOAD_ENV = 'GOONDAN_AGENT_PRELOAD';
/** Set by the warm pool on the spares it launches: only they rehearse (a cold start is awaited). */
export const AGENT_SPARE_ENV = 'GOONDAN_AGENT_SPARE';
/** AGENT_SPARE_ENV of a spare the pool sends `runtime.prime` as it launches it (else `1`). */
export const SPARE_PRIMED_AT_LAUNCH = 'prime-follows';

export function isSpare(env: Record<string, string | undefined>): boolean {
  return env[AGENT_SPARE_ENV] === '1' || env[AGENT_SPARE_ENV] === SPARE_PRIMED_AT_LAUNCH;
}

export interface AgentRehearsal {
  agentPlan: AgentPlan;
  swarmPlan: SwarmPlan;
}

export interface AgentPreload {
  /** Absolute paths of entry modules. */
  modules: string[];
  /** `Model.spec.provider` values other than `mock`. */
  providers: string[];
  /** Checked like an assignment by the spare that uses it (control-protocol's `runtime.assign` schema). */
  rehearsal?: AgentRehearsal;
}

export const isAgentPreload = compiledValidator<AgentPreload>({
  schema: {
    type: 'object',
    required: ['modules', 'providers'],
    properties: {
      modules: { type: 'array', items: { type: 'string' } },
      providers: { type: 'array', items: { type: 'string' } },
      rehearsal: { type: 'object', required: ['agentPlan', 'swarmPlan'] },
    },
  },
});

/** A rehearsal larger than this stays out of the environment (a variable is limited to 128 KiB). */
const MAX_REHEARSAL_CHARS = 64 * 1024;

export function agentPreloadOf(plans: Iterable<AgentPlan>, swarm?: SwarmPlan): AgentPreload {
  const modules = new Set<string>();
  const providers = new Set<string>();
  const builtInTools = new Map<string, ToolPlan>();
  let first: AgentPlan | undefined;
  for (const plan of plans) {
    first ??= plan;
    // A tool without an entry module (HTTP exports only) has nothing to load.
    for (const part of [...plan.tools, ...plan.extensions]) if (part.packageName === BASE_PACKAGE && part.entryPath !== undefined) modules.add(part.entryPath);
    for (const tool of plan.tools) if (tool.packageName === BASE_PACKAGE && !builtInTools.has(tool.name)) builtInTools.set(tool.name, tool);
    if (plan.model.provider !== 'mock') providers.add(plan.model.provider);
  }
  const preload: AgentPreload = { modules: [...modules].sort(), providers: [...providers].sort() };
  if (!first || !swarm) return preload;
  const rehearsal = rehearsalOf(first, [...builtInTools.values()], swarm);
  return JSON.stringify(rehearsal).length <= MAX_REHEARSAL_CHARS ? { ...preload, rehearsal } : preload;
}

/**
 * One of the swarm's agents, reduced to what cannot reach the world and holds no secret (the
 * environment is inherited by tool processes): built-in coded tools, no extension, no system
 * prompt, the mock model without key, endpoint or options.
 */
function rehearsalOf(plan: AgentPlan, tools: ToolPlan[], swarm: SwarmPlan): AgentRehearsal {
  const { systemPrompt: _prompt, ...rest } = plan;
  return {
    agentPlan: {
      ...rest,
      tools: tools.filter((tool) => tool.exports.every((exp) => exp.http === undefined)),
      extensions: [],
      requiredTools: [],
      model: offlineModel(plan.model),
    },
    swarmPlan: rehearsalSwarm(swarm),
  };
}

/** A Model a rehearsal may call: the offline mock, without key, endpoint or options. */
export function offlineModel(model: ModelPlan): ModelPlan {
  return { name: model.name, provider: 'mock', model: model.model, options: {}, capabilities: model.capabilities };
}

/**
 * The swarm as a rehearsal runs in it: no budget (nothing to ask the orchestrator), and no fsync
 * (nothing of a rehearsal is kept, and a disk round of its own would slow the fsyncs of live
 * instances, which share the filesystem's journal).
 */
export function rehearsalSwarm(swarm: SwarmPlan): SwarmPlan {
  const { budget: _budget, ...unbudgeted } = swarm;
  return { ...unbudgeted, durability: { ...swarm.durability, fsync: 'never' } };
}
