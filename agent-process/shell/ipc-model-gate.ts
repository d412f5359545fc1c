/**
 * The ModelGate over IPC: before each model call the agent asks the orchestrator (budgets and
 * rate limits are the swarm's, not one process's), and tells it when the call ended and when the
 * provider throttled. Only agents with a budget or a rate-limited Model get one.
 */
import { GoondanError } from '../../shared/errors/index.ts';
import type { AgentPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { ModelGate } from '../engine/model-gate.ts';
import { type ControlChannel, requestControl } from '../../shared/child/control-request.ts';

/** An admission may wait for rate limits or a person's decision (budget `ask`): long, not forever. */
const ADMIT_TIMEOUT_MS = 15 * 60_000;

export function needsModelGate(agent: AgentPlan, swarm: SwarmPlan): boolean {
  return swarm.budget !== undefined || agent.model.rateLimit !== undefined;
}

export function createIpcModelGate(control: ControlChannel): ModelGate {
  return {
    async admit(request) {
      const answer = await requestControl(control, 'runtime.model.admit', request, ADMIT_TIMEOUT_MS);
      if (!answer.ok) throw GoondanError.fromJSON(answer.error);
      return answer.value.admissionId;
    },
    release(admissionId, outcome) {
      control.channel.control('runtime.model.release', { admissionId, ...outcome });
    },
    throttled(retryAfterMs) {
      control.channel.control('runtime.model.throttled', { retryAfterMs });
    },
  };
}
