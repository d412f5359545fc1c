/**
 * The orchestrator's guarantee of Swarm.spec.policy.interAgent for every message an agent sends:
 * the target is in the sender's scope, the chain is within maxHops (both checked in the agent
 * first, shared/inter-agent-scope.ts), and the outside event that started it all has not yet caused
 * maxMessagesPerTrace agent messages — which only the orchestrator can count: a fan-out (each turn
 * messaging three new instances) stays within maxHops while growing as 3^hops.
 * Counts live in memory, per daemon: a restart starts them again.
 */
import { runtimeError, type ErrorShape } from '../../shared/errors/index.ts';
import { interAgentRefusal } from '../../shared/inter-agent-scope.ts';
import type { InterAgentPlan } from '../../shared/types/bundle.ts';

/** Traces remembered at most; the least recently active are forgotten first. */
const MAX_TRACES = 10_000;

export class InterAgentLimits {
  /** Messages per traceId, in order of last activity (a Map keeps insertion order). */
  private readonly messages = new Map<string, number>();

  constructor(private readonly plan: () => InterAgentPlan) {}

  /** Why this message is refused, or undefined when it may go (and then it is counted). */
  refusal(sender: { agent: string; instanceKey: string }, targetKey: string, hops: number, traceId: string | undefined): ErrorShape | undefined {
    const plan = this.plan();
    const refused = interAgentRefusal(plan, sender, targetKey, hops);
    if (refused || traceId === undefined) return refused;
    const count = (this.messages.get(traceId) ?? 0) + 1;
    if (count > plan.maxMessagesPerTrace) {
      return runtimeError(
        'HOP_LIMIT_EXCEEDED',
        `the event that started this exchange has already caused ${plan.maxMessagesPerTrace} agent messages (Swarm.spec.policy.interAgent.maxMessagesPerTrace)`,
        { traceId, maxMessagesPerTrace: plan.maxMessagesPerTrace },
      );
    }
    this.messages.delete(traceId);
    this.messages.set(traceId, count);
    if (this.messages.size > MAX_TRACES) this.messages.delete(this.messages.keys().next().value ?? '');
    return undefined;
  }
}
