/**
 * A primed spare's assignment (issue 12: a new instance must not feel new). A spare primed with an
 * agent's plan (`runtime.prime`) already holds it, validated: when the instance it becomes has that
 * very plan, `runtime.assign` names the instance and says `asPrimed` instead of carrying the plans
 * again (~7 KB for a small swarm: serialised, sent, parsed and validated once more, ~0.4 ms of
 * the new instance's first reply). The spare puts the plans it holds back in.
 */
import type { AgentAssignment, Assignment, ControlPayloads, PrimedAgentAssignment } from './control-protocol.ts';

type PrimePlan = ControlPayloads['runtime.prime'];

/**
 * What the orchestrator sends a spare primed with `primed`: `asPrimed` when the assignment's plans
 * are the primed ones (the same objects: a reload in between makes new ones), else the whole one.
 */
export function assignmentFor(assignment: Assignment, primed: PrimePlan | undefined): Assignment | PrimedAgentAssignment {
  if (assignment.role !== 'agent' || primed === undefined) return assignment;
  if (primed.agentPlan !== assignment.agentPlan || primed.swarmPlan !== assignment.swarmPlan) return assignment;
  const { agentPlan: _agentPlan, swarmPlan: _swarmPlan, ...identity } = assignment;
  return { ...identity, asPrimed: true };
}

/** The whole assignment, with the plans this spare was primed with; undefined when it holds none for that agent. */
export function resolveAssignment(received: Assignment | PrimedAgentAssignment, primed: PrimePlan | undefined): Assignment | undefined {
  if (!('asPrimed' in received)) return received;
  if (primed === undefined || primed.agentPlan.name !== received.agent) return undefined;
  const { asPrimed: _asPrimed, ...identity } = received;
  const whole: AgentAssignment = { ...identity, agentPlan: primed.agentPlan, swarmPlan: primed.swarmPlan };
  return whole;
}
