/**
 * Which instances an agent may reach with `agents__request` / `send` / `spawn` / `list`
 * (`Swarm.spec.policy.interAgent`). An instance key is usually a tenant — one chat, one user — so by
 * default (`scoped`) an agent reaches its own key, the keys under it (`<own>/<anything>`, its private
 * helpers), the keys above it (whoever it is a helper of) and the swarm's declared shared keys; never
 * another tenant's conversation. Checked by the agent (so the model gets the error as its tool
 * result) and again by the orchestrator (the guarantee). Also the hop limit that ends message loops.
 */
import { type ErrorShape, runtimeError } from './errors/index.ts';
import type { InterAgentPlan } from './types/bundle.ts';

export const INSTANCE_KEY_SEPARATOR = '/';
export const DEFAULT_MAX_HOPS = 32;
export const DEFAULT_MAX_MESSAGES_PER_TRACE = 256;
export const DEFAULT_INTER_AGENT_PLAN: InterAgentPlan = { instanceKeys: 'scoped', sharedInstanceKeys: [], maxHops: DEFAULT_MAX_HOPS, maxMessagesPerTrace: DEFAULT_MAX_MESSAGES_PER_TRACE };

/** Whether `target` is the caller's own key, under it, above it, or shared; `any` reaches every key. */
export function inScope(plan: InterAgentPlan, callerKey: string, target: string): boolean {
  if (plan.instanceKeys === 'any' || target === callerKey) return true;
  if (target.startsWith(callerKey + INSTANCE_KEY_SEPARATOR) || callerKey.startsWith(target + INSTANCE_KEY_SEPARATOR)) return true;
  return plan.sharedInstanceKeys.includes(target);
}

/** The refusal an out-of-scope target gets, naming the keys the caller may use instead. */
export function outOfScopeMessage(agent: string, callerKey: string, target: string): string {
  return (
    `agent '${agent}' of instance '${callerKey}' may not reach instance '${target}': under Swarm.spec.policy.interAgent.instanceKeys: scoped an agent reaches ` +
    `its own instance key, keys under it ('${callerKey}${INSTANCE_KEY_SEPARATOR}${target}') and above it, and the swarm's sharedInstanceKeys`
  );
}

/** The refusal of a message that would be `hops` messages away from the event that started the chain. */
export function hopLimitMessage(hops: number, maxHops: number): string {
  return `this message would be ${hops} agent messages away from the event that started the chain; Swarm.spec.policy.interAgent.maxHops is ${maxHops}`;
}

/**
 * Why a message from `caller` to `targetKey`, `hops` messages into its chain, is refused; undefined
 * when it may go. `hops` is undefined for what starts no chain (spawn).
 */
export function interAgentRefusal(plan: InterAgentPlan, caller: { agent: string; instanceKey: string }, targetKey: string, hops?: number): ErrorShape | undefined {
  if (!inScope(plan, caller.instanceKey, targetKey)) {
    return runtimeError('INSTANCE_OUT_OF_SCOPE', outOfScopeMessage(caller.agent, caller.instanceKey, targetKey), { instanceKey: targetKey });
  }
  if (hops !== undefined && hops > plan.maxHops) return runtimeError('HOP_LIMIT_EXCEEDED', hopLimitMessage(hops, plan.maxHops), { hops, maxHops: plan.maxHops });
  return undefined;
}
