/**
 * Connection rules (SPEC.md §1.2, §6): a swarm to route to (swarmRef, else the first swarm),
 * `instanceKey` and `instanceKeyProperty` exclusive, `route.agentRef` an agent of that swarm.
 */
import { isJsonObject } from '../types/json.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { RefResolutions } from './check-refs.ts';
import { swarmAgents } from './check-swarms.ts';
import type { ProblemSink } from './problem-sink.ts';

/** The swarm a connection feeds: its swarmRef, else the first swarm of its own package, else any. */
export function connectionSwarm(doc: NamedDocument, swarms: readonly NamedDocument[], resolutions: RefResolutions): NamedDocument | undefined {
  if (specOf(doc)?.swarmRef !== undefined) return resolutions.get(doc, ['spec', 'swarmRef']);
  return swarms.find((s) => s.packageName === doc.packageName) ?? swarms[0];
}

export function checkConnection(doc: NamedDocument, swarms: readonly NamedDocument[], resolutions: RefResolutions, sink: ProblemSink): void {
  const spec = specOf(doc);
  if (!spec) return;
  if (spec.swarmRef === undefined && swarms.length === 0) {
    sink.at(doc, ['spec'], 'E_CONFIG_CONNECTION_NO_SWARM', `Connection "${doc.name}" has no swarmRef and the bundle defines no Swarm`, {
      target: 'key',
      suggestion: 'define a Swarm, or set swarmRef',
    });
  }
  const ingress = spec.ingress;
  const rules = isJsonObject(ingress) && Array.isArray(ingress.rules) ? ingress.rules : [];
  const swarm = connectionSwarm(doc, swarms, resolutions);
  const members = swarm ? swarmAgents(swarm, resolutions) : [];
  rules.forEach((rule, i) => {
    const route = isJsonObject(rule) ? rule.route : undefined;
    if (!isJsonObject(route)) return;
    const routePath = ['spec', 'ingress', 'rules', i, 'route'];
    if (route.instanceKey !== undefined && route.instanceKeyProperty !== undefined) {
      sink.at(doc, [...routePath, 'instanceKeyProperty'], 'E_CONFIG_INSTANCE_KEY_CONFLICT', 'route sets both instanceKey and instanceKeyProperty; they are exclusive', {
        target: 'key',
        suggestion: 'keep instanceKey for one fixed conversation, or instanceKeyProperty to key by an event property',
      });
    }
    const agent = resolutions.get(doc, [...routePath, 'agentRef']);
    if (agent && swarm && !resolutions.broken.has(swarm) && !members.includes(agent)) {
      sink.at(doc, [...routePath, 'agentRef'], 'E_CONFIG_ROUTE_AGENT_NOT_IN_SWARM', `route agent "${agent.name}" is not an agent of Swarm "${swarm.name}" (${members.map((a) => a.name).join(', ')})`, {
        suggestion: `add "Agent/${agent.name}" to the swarm's agents, or route to one of them`,
      });
    }
  });
}
