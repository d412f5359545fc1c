/**
 * ConnectionPlans of one swarm: connector entry and events, config / secrets read from their
 * ValueSources (optional: a missing variable leaves the key out), ingress rules with agents
 * resolved. A Connection without swarmRef feeds the first swarm (SPEC.md §1.2).
 */
import { resolve } from 'node:path';
import type { ConnectionPlan, LoadedBundle, LoadedResource } from '../types/bundle.ts';
import type { ValueSource } from '../types/resources.ts';
import { resolveBundlePath } from './bundle-path.ts';
import { EnvIssues } from './env-issues.ts';
import { asConnection, asConnector, assertLoadable, findSwarm, resolveIn, swarmsOf } from './plan-resolver.ts';

function readValues(
  values: Record<string, ValueSource> | undefined,
  field: 'config' | 'secrets',
  owner: LoadedResource,
  env: Record<string, string | undefined>,
  issues: EnvIssues,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, source] of Object.entries(values ?? {})) {
    const value = issues.read(source, env, owner, ['spec', field, key], false, `${field}.${key}`);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function planConnections(bundle: LoadedBundle, swarmName: string, env: Record<string, string | undefined>, issues: EnvIssues): ConnectionPlan[] {
  assertLoadable(bundle);
  findSwarm(bundle, swarmName); // throws E_CONFIG_SWARM_NOT_FOUND for an unknown swarm
  const firstSwarm = swarmsOf(bundle)[0]?.name;
  const plans: ConnectionPlan[] = [];
  for (const resource of bundle.resources) {
    const connection = asConnection(resource.resource);
    if (!connection) continue;
    const { spec } = connection;
    const target = spec.swarmRef === undefined ? firstSwarm : resolveIn(bundle, resource, spec.swarmRef, ['spec', 'swarmRef']).target.name;
    if (target !== swarmName) continue;
    const connectorResource = resolveIn(bundle, resource, spec.connectorRef, ['spec', 'connectorRef']).target;
    const connector = asConnector(connectorResource.resource);
    if (!connector) continue;
    const entry = resolveBundlePath(connectorResource.bundleRoot, connector.spec.entry, 'entry');
    plans.push({
      name: resource.name,
      connectorName: connectorResource.name,
      connectorEntryPath: entry.ok ? entry.path : resolve(connectorResource.bundleRoot, connector.spec.entry),
      events: connector.spec.events,
      swarmName,
      config: readValues(spec.config, 'config', resource, env, issues),
      secrets: readValues(spec.secrets, 'secrets', resource, env, issues),
      rules: (spec.ingress?.rules ?? []).map((rule, i) => {
        const { agentRef, ...route } = rule.route;
        const agent = agentRef === undefined ? undefined : resolveIn(bundle, resource, agentRef, ['spec', 'ingress', 'rules', i, 'route', 'agentRef']).target.name;
        const planned: ConnectionPlan['rules'][number] = { route: agent === undefined ? route : { ...route, agent } };
        if (rule.match !== undefined) planned.match = rule.match;
        return planned;
      }),
    });
  }
  return plans;
}

export function buildConnectionPlans(bundle: LoadedBundle, swarmName: string, env: Record<string, string | undefined>): ConnectionPlan[] {
  const issues = new EnvIssues();
  const plans = planConnections(bundle, swarmName, env, issues);
  issues.throwIfRequiredMissing();
  return plans;
}
