/** `ctx.runtime` of turn and step middleware (SPEC.md §2.7): where this turn runs and what caused it. */
import type { AgentPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { MiddlewareRuntimeInfo } from '../../shared/types/extensions.ts';

export function middlewareRuntimeInfo(plan: AgentPlan, swarm: SwarmPlan, instanceKey: string, event: AgentEvent): MiddlewareRuntimeInfo {
  const info: MiddlewareRuntimeInfo = {
    agent: { name: plan.name, bundleRoot: plan.bundleRoot, ...(plan.systemPrompt !== undefined ? { prompt: { system: plan.systemPrompt } } : {}) },
    swarm: {
      swarmName: swarm.name,
      entryAgent: swarm.entryAgent,
      selfAgent: plan.name,
      availableAgents: [...swarm.agents],
      callableAgents: swarm.agents.filter((agent) => agent !== plan.name),
    },
    inbound: {
      eventId: event.id,
      eventType: event.type,
      sourceKind: event.source.kind,
      sourceName: event.source.name,
      createdAt: event.createdAt,
      // The instance this process is: the router already resolved the event's key to it.
      instanceKey,
      ...(event.metadata !== undefined ? { eventMetadata: event.metadata } : {}),
      ...(event.source.kind === 'connector' ? { properties: connectorProperties(event.source) } : {}),
    },
  };
  if (event.source.kind === 'agent' || event.replyTo !== undefined) {
    const callerInstanceKey = event.source.instanceKey;
    info.call = {
      ...(event.source.kind === 'agent' ? { callerAgent: event.source.name } : {}),
      ...(typeof callerInstanceKey === 'string' ? { callerInstanceKey } : {}),
      ...(event.replyTo !== undefined ? { replyTo: { ...event.replyTo } } : {}),
    };
  }
  return info;
}

/** Everything in a connector source besides who sent it (kind, name, event) is a property (SPEC.md §6). */
function connectorProperties(source: AgentEvent['source']): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key !== 'kind' && key !== 'name' && key !== 'event' && typeof value === 'string') properties[key] = value;
  }
  return properties;
}
