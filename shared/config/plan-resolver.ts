/**
 * Reference resolution over a loaded bundle's typed resources, for the plan builders. Plans are
 * only built from bundles without errors (SPEC.md §1.3 "any error rejects the whole config").
 */
import type { LoadedBundle, LoadedResource } from '../types/bundle.ts';
import type { JsonObject } from '../types/json.ts';
import type {
  AgentResource,
  AnyResource,
  ConnectionResource,
  ConnectorResource,
  ExtensionResource,
  ModelResource,
  ObjectRefLike,
  RefItem,
  ResourceKind,
  SwarmResource,
  ToolResource,
} from '../types/resources.ts';
import { bundleProblem, problemAt } from './bundle-internals.ts';
import { isResourceKind } from './check-envelope.ts';
import { didYouMean } from './closest-names.ts';
import { ConfigError } from './config-error.ts';
import type { PathSegment } from './json-path.ts';
import type { ParsedRef } from './ref-syntax.ts';
import { ResourceIndex } from './resource-index.ts';

const indexes = new WeakMap<LoadedBundle, ResourceIndex<LoadedResource>>();

export function assertLoadable(bundle: LoadedBundle): void {
  if (bundle.errors.length > 0) {
    throw new ConfigError(bundle.errors, `the bundle has ${bundle.errors.length} configuration error(s); run 'goondan validate' for details`);
  }
}

function indexOf(bundle: LoadedBundle): ResourceIndex<LoadedResource> {
  let index = indexes.get(bundle);
  if (!index) {
    index = new ResourceIndex(bundle.resources);
    indexes.set(bundle, index);
  }
  return index;
}

/** `"Kind/name"`, `{kind, name, package?}` or `{ref, config?}` → the ref and its per-use config. */
export function splitRefItem(item: ObjectRefLike | RefItem): { ref: ParsedRef; config?: JsonObject } {
  if (typeof item === 'string') {
    const [kind, name = ''] = item.split('/');
    // Syntax was checked at load time; plans are built only from bundles without errors.
    if (!isResourceKind(kind)) throw new Error(`invariant: reference "${item}" was not validated`);
    return { ref: { kind, name } };
  }
  if ('ref' in item) {
    const inner = splitRefItem(item.ref);
    return item.config ? { ref: inner.ref, config: item.config } : inner;
  }
  return { ref: item.package === undefined ? { kind: item.kind, name: item.name } : { kind: item.kind, name: item.name, package: item.package } };
}

export interface Resolved {
  target: LoadedResource;
  config?: JsonObject;
}

export function resolveIn(bundle: LoadedBundle, referrer: LoadedResource, item: ObjectRefLike | RefItem, segments: readonly PathSegment[]): Resolved {
  const { ref, config } = splitRefItem(item);
  const resolution = indexOf(bundle).resolve(ref, referrer.packageName);
  if (!resolution.ok) throw new ConfigError([problemAt(referrer, segments, resolution.code, resolution.message, resolution.suggestion)]);
  return config ? { target: resolution.target, config } : { target: resolution.target };
}

export function findBuiltin(bundle: LoadedBundle, kind: ResourceKind, packageName: string, name: string): LoadedResource | undefined {
  return indexOf(bundle).get(kind, packageName, name);
}

/** Swarms of the bundle, the user's package first (then load order). */
export function swarmsOf(bundle: LoadedBundle): LoadedResource[] {
  const swarms = bundle.resources.filter((r) => r.kind === 'Swarm');
  return [...swarms.filter((s) => s.packageName === bundle.packageName), ...swarms.filter((s) => s.packageName !== bundle.packageName)];
}

export function findSwarm(bundle: LoadedBundle, swarmName: string): { resource: LoadedResource; spec: SwarmResource['spec'] } {
  const swarms = swarmsOf(bundle);
  for (const resource of swarms) {
    if (resource.name === swarmName && resource.resource.kind === 'Swarm') return { resource, spec: resource.resource.spec };
  }
  throw new ConfigError([
    bundleProblem(bundle, 'E_CONFIG_SWARM_NOT_FOUND', `no Swarm named "${swarmName}"`, didYouMean(swarmName, swarms.map((s) => s.name)) ?? `swarms: ${swarms.map((s) => s.name).join(', ') || '(none)'}`),
  ]);
}

// Narrowing helpers: the discriminant `kind` of the resource tells its spec type.
export function asAgent(r: AnyResource): AgentResource | undefined {
  return r.kind === 'Agent' ? r : undefined;
}
export function asModel(r: AnyResource): ModelResource | undefined {
  return r.kind === 'Model' ? r : undefined;
}
export function asTool(r: AnyResource): ToolResource | undefined {
  return r.kind === 'Tool' ? r : undefined;
}
export function asExtension(r: AnyResource): ExtensionResource | undefined {
  return r.kind === 'Extension' ? r : undefined;
}
export function asConnector(r: AnyResource): ConnectorResource | undefined {
  return r.kind === 'Connector' ? r : undefined;
}
export function asConnection(r: AnyResource): ConnectionResource | undefined {
  return r.kind === 'Connection' ? r : undefined;
}
