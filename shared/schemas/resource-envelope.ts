/** Wraps a Kind's `spec` schema in the resource envelope `{apiVersion, kind, metadata, spec}` (SPEC.md §1.1). */
import type { JsonObject } from '../types/json.ts';
import { API_VERSION, type ResourceKind } from '../types/resources.ts';
import { commonRef } from './common.ts';

export function resourceSchema(kind: ResourceKind, description: string, spec: JsonObject, specRequired = true): JsonObject {
  return {
    $id: `goondan:kind/${kind}`,
    title: kind,
    description,
    type: 'object',
    additionalProperties: false,
    required: ['apiVersion', 'kind', 'metadata', ...(specRequired ? ['spec'] : [])],
    properties: {
      apiVersion: { type: 'string', const: API_VERSION, description: `Always "${API_VERSION}".` },
      kind: { type: 'string', const: kind, description: `The resource kind: ${kind}.` },
      metadata: {
        ...commonRef(kind === 'Package' ? 'packageMetadata' : 'metadata'),
        description: kind === 'Package' ? 'The package name (and optional labels).' : `The ${kind}'s name, unique among ${kind}s of its package (and optional labels).`,
      },
      spec,
    },
  };
}
