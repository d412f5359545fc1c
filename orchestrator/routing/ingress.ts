/**
 * Connector ingress (SPEC.md §2.4, §6): the first matching rule wins; `event` and `properties`
 * conditions are ANDed and compared as strings; a rule without `match` catches all. Target agent:
 * `route.agent` else the swarm's entry agent. instanceKey: `route.instanceKey` >
 * `prefix + properties[instanceKeyProperty]` > the connector's own key.
 */
import type { ConnectionPlan } from '../../shared/types/bundle.ts';

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
