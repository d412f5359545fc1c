/**
 * Whether a message an agent sends (agents__request / send) may go, checked by the orchestrator
 * before anything is routed: a valid instance key, an agent of the swarm, Swarm.spec.policy.interAgent
 * (the target in the sender's scope and the chain within maxHops — both checked in the agent first,
 * shared/inter-agent-scope.ts — and fewer than maxMessagesPerTrace messages caused by the outside
 * event that started it all, which only the orchestrator can count: a fan-out of three new
 * instances per turn stays within maxHops while growing as 3^hops), no request to an instance that
 * will not start before the daemon exits, and no call cycle.
 * Trace counts live in memory, per daemon: a restart starts them again.
 */
import { runtimeError, type ErrorShape } from '../../shared/errors/index.ts';
import { validateInstanceKey } from '../../shared/instance-key.ts';
import { interAgentRefusal } from '../../shared/inter-agent-scope.ts';
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import { callChainOf, hopsOf } from '../../shared/ipc/request-metadata.ts';
import type { SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import { extendCallChain } from './call-chain.ts';

/** Traces remembered at most; the least recently active are forgotten first. */
const MAX_TRACES = 10_000;

export interface AgentCallChecksDeps {
  swarm(): SwarmPlan;
  supervisor: Supervisor;
  /** Cluster mode: the target may run on another node. */
  clustered: boolean;
}

export class AgentCallChecks {
  /** Messages per traceId, in order of last activity (a Map keeps insertion order). */
  private readonly messages = new Map<string, number>();

  constructor(private readonly deps: AgentCallChecksDeps) {}

  /** Why the message is refused, or undefined when it may go (and then it is counted). */
  refusal(from: ManagedProcess, target: AgentId, event: AgentEvent): ErrorShape | undefined {
    const swarm = this.deps.swarm();
    const badKey = validateInstanceKey(target.instanceKey);
    if (badKey) return runtimeError('INVALID_REQUEST', badKey);
    if (!swarm.agents.includes(target.agent)) return runtimeError('AGENT_NOT_FOUND', `agent '${target.agent}' is not part of swarm '${swarm.name}'`);
    const outOfBounds = interAgentRefusal(swarm.interAgent, { agent: from.name, instanceKey: from.instanceKey }, target.instanceKey, hopsOf(event));
    if (outOfBounds) return outOfBounds;
    if (event.replyTo) {
      const { supervisor } = this.deps;
      // A draining turn's request to an instance that is not running: nothing will start it before the exit.
      if (supervisor.isStopping && !this.deps.clustered && supervisor.get('agent', target.agent, target.instanceKey)?.alive !== true) {
        return runtimeError('DAEMON_STOPPING', `'${target.agent}' (instance '${target.instanceKey}') is not running, and the daemon is shutting down`);
      }
      const cycle = extendCallChain(callChainOf(event), agentKey(target));
      if (!cycle.ok) return runtimeError('CIRCULAR_CALL_DETECTED', `circular call: ${cycle.cycle.join(' → ')}`);
    }
    return this.count(event.traceId, swarm.interAgent.maxMessagesPerTrace);
  }

  private count(traceId: string | undefined, limit: number): ErrorShape | undefined {
    if (traceId === undefined) return undefined;
    const count = (this.messages.get(traceId) ?? 0) + 1;
    if (count > limit) {
      return runtimeError('HOP_LIMIT_EXCEEDED', `the event that started this exchange has already caused ${limit} agent messages (Swarm.spec.policy.interAgent.maxMessagesPerTrace)`, {
        traceId,
        maxMessagesPerTrace: limit,
      });
    }
    this.messages.delete(traceId);
    this.messages.set(traceId, count);
    if (this.messages.size > MAX_TRACES) this.messages.delete(this.messages.keys().next().value ?? '');
    return undefined;
  }
}
