/**
 * Connector ingress (SPEC.md §2.4, §6): the first matching rule wins; `event` and `properties`
 * conditions are ANDed and compared as strings; a rule without `match` catches all. Target agent:
 * `route.agent` else the swarm's entry agent. instanceKey: `route.instanceKey` >
 * `prefix + properties[instanceKeyProperty]` > the connector's own key.
 */
import { type ErrorShape, runtimeError } from '../../shared/errors/index.ts';
import { validateInstanceKey } from '../../shared/instance-key.ts';
import type { ConnectionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { targetOf } from './default-target.ts';

export interface IngressInput {
  name: string;
  properties: Record<string, string>;
  instanceKey: string;
}

export interface IngressTarget {
  agent: string;
  instanceKey: string;
  /** Index of the rule that matched (undefined when the Connection has no rules). */
  ruleIndex?: number;
}

export function routeIngress(rules: ConnectionPlan['rules'], entryAgent: string, input: IngressInput): IngressTarget | undefined {
  if (rules.length === 0) return { agent: entryAgent, instanceKey: input.instanceKey };
  for (const [ruleIndex, rule] of rules.entries()) {
    if (!matches(rule.match, input)) continue;
    const { route } = rule;
    const propertyKey = route.instanceKeyProperty ? input.properties[route.instanceKeyProperty] : undefined;
    const instanceKey =
      route.instanceKey ?? (propertyKey !== undefined && propertyKey !== '' ? `${route.instanceKeyPrefix ?? ''}${propertyKey}` : input.instanceKey);
    return { agent: route.agent ?? entryAgent, instanceKey, ruleIndex };
  }
  return undefined;
}

function matches(match: ConnectionPlan['rules'][number]['match'], input: IngressInput): boolean {
  if (!match) return true;
  if (match.event !== undefined && match.event !== input.name) return false;
  for (const [key, expected] of Object.entries(match.properties ?? {})) {
    if (input.properties[key] !== String(expected)) return false;
  }
  return true;
}

/** Where a connector's event goes, or why it goes nowhere (the router tells the connector). */
export type ConnectorEventRoute =
  | { ok: true; target: { agent: string; instanceKey: string }; eventName: string }
  /** `always`: the connector hears of it even for a send; `whenWaiting`: only a request is answered. */
  | { ok: false; error: ErrorShape; tell: 'always' | 'whenWaiting'; log?: { level: 'info' | 'warn'; message: string; fields: Record<string, string> } };

/**
 * Resolves a connector event through its Connection's rules (string properties of its source,
 * its event name) to a known agent and a usable instance key.
 */
export function routeConnectorEvent(event: AgentEvent, connectionName: string, rules: ConnectionPlan['rules'], swarm: SwarmPlan): ConnectorEventRoute {
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(event.source)) {
    if (key !== 'kind' && key !== 'name' && key !== 'event' && value !== null && typeof value !== 'object') properties[key] = String(value);
  }
  const eventName = typeof event.source.event === 'string' ? event.source.event : event.type.replace(/^connector\./, '');
  const emitted = targetOf(swarm.entryAgent, event.instanceKey);
  const routed = routeIngress(rules, swarm.entryAgent, { name: eventName, properties, instanceKey: emitted.instanceKey });
  if (!routed) {
    return {
      ok: false,
      error: runtimeError('AGENT_NOT_FOUND', `no ingress rule of connection '${connectionName}' matched event '${eventName}'`),
      tell: 'whenWaiting',
      log: { level: 'info', message: 'no ingress rule matched; event dropped', fields: { event: eventName } },
    };
  }
  if (!swarm.agents.includes(routed.agent)) {
    return { ok: false, error: runtimeError('AGENT_NOT_FOUND', `ingress routes to '${routed.agent}', which is not part of swarm '${swarm.name}'`), tell: 'always' };
  }
  const badKey = validateInstanceKey(routed.instanceKey);
  if (badKey) {
    return { ok: false, error: runtimeError('INVALID_REQUEST', badKey), tell: 'whenWaiting', log: { level: 'warn', message: 'connector event with an unusable instance key; dropped', fields: { problem: badKey } } };
  }
  return { ok: true, target: { agent: routed.agent, instanceKey: routed.instanceKey }, eventName };
}

/** A connector names a redelivery by the provider's id (e.g. a webhook delivery id): one turn per id. */
export function connectorIdempotencyKey(event: AgentEvent, connectionName: string): string | undefined {
  const suppliedKey = event.metadata?.idempotencyKey;
  return typeof suppliedKey === 'string' && suppliedKey !== '' ? `connection/${connectionName}/${suppliedKey}` : undefined;
}
