/**
 * A warm spare primed for the agent it will most likely become (issue 12: a new instance must not
 * feel new). The pool sends a ready spare `runtime.prime` with that agent's plan; the spare
 * rehearses one turn with it (agent-rehearsal.ts) in a scratch directory: the plan's own tools
 * (their modules load; no handler runs, every call is refused), its system prompt and — when its
 * model is the offline `mock` — its script. What the first real turn of that agent would do the
 * first time is then done. Measured on the e2e swarm: a new instance's first reply ~15 -> ~10 ms.
 * Nothing of it reaches the world:
 * - a real provider's model is replaced by the mock (no options): a rehearsal never calls a provider;
 * - extensions stay out (their code may do anything, on any event);
 * - the plan came over IPC, never the environment (it holds resolved keys; tool processes inherit
 *   the environment).
 * The spare stays a spare: any assignment is served as before.
 */
import { createDeferredLogger } from '../../shared/deferred-logger.ts';
import type { ControlPayloads } from '../../shared/ipc/control-protocol.ts';
import { type AgentRehearsal, offlineModel, rehearsalSwarm } from '../../shared/ipc/agent-preload.ts';
import { rehearseAgent } from './agent-rehearsal.ts';

/** Resolves true when the spare rehearsed a turn of the agent's plan. */
export async function primeAgent(prime: ControlPayloads['runtime.prime']): Promise<boolean> {
  const started = performance.now();
  const primed = await rehearseAgent(primingRehearsal(prime));
  // Not yet an agent instance: its lines carry no agent and instanceKey, so they are not named 'agent'.
  createDeferredLogger({ name: 'agent-spare' }).debug(
    { primedFor: prime.agentPlan.name, primed, ms: Math.round(performance.now() - started) },
    primed ? 'warm spare primed for the agent it will likely become' : 'warm spare could not be primed; it stays as warm as it was',
  );
  return primed;
}

export function primingRehearsal({ agentPlan, swarmPlan }: ControlPayloads['runtime.prime']): AgentRehearsal {
  return {
    agentPlan: {
      ...agentPlan,
      extensions: [],
      requiredTools: [],
      // The mock's own script is offline already; any other provider becomes the mock.
      model: agentPlan.model.provider === 'mock' ? agentPlan.model : offlineModel(agentPlan.model),
    },
    swarmPlan: rehearsalSwarm(swarmPlan),
  };
}
