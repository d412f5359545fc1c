/**
 * Reference shapes (SPEC.md §1.1): `"Kind/name"`, `{kind, name, package?}` and `{ref, config?}` items.
 * Registered under `$id: goondan:refs`. These definitions guide editors; the loader's ref checker
 * (shared/config/ref-syntax.ts) owns their validation, so ajv errors raised inside them are dropped
 * in favour of its more precise E_CONFIG_INVALID_REF / E_CONFIG_SELECTOR_UNSUPPORTED problems.
 */
import type { JsonObject } from '../types/json.ts';
import { RESOURCE_KINDS } from '../types/resources.ts';

export const REFS_SCHEMA_ID = 'goondan:refs';

export function refsRef(name: string): JsonObject {
  return { $ref: `${REFS_SCHEMA_ID}#/definitions/${name}` };
}

const kinds: string[] = [...RESOURCE_KINDS];

export const refsSchema: JsonObject = {
  $id: REFS_SCHEMA_ID,
  definitions: {
    objectRef: {
      description: 'A reference to a resource: "Kind/name", or {kind, name, package?}.',
      anyOf: [
        { type: 'string', pattern: '^[A-Za-z]+/[^/]+$', description: '"Kind/name", e.g. "Tool/bash".' },
        {
          type: 'object',
          description: 'A reference object; with package it resolves only inside that package.',
          additionalProperties: false,
          required: ['kind', 'name'],
          properties: {
            kind: { type: 'string', enum: kinds, description: 'Kind of the referenced resource.' },
            name: { type: 'string', description: 'metadata.name of the referenced resource.' },
            package: { type: 'string', description: 'Package that holds the resource, e.g. "@goondan/base".' },
            apiVersion: { type: 'string', enum: ['goondan.ai/v1'], description: 'Optional; always goondan.ai/v1.' },
          },
        },
      ],
    },
    refItem: {
      description: 'A reference, or {ref} around one.',
      anyOf: [
        { $ref: '#/definitions/objectRef' },
        {
          type: 'object',
          description: 'A list item holding a reference.',
          additionalProperties: false,
          required: ['ref'],
          properties: { ref: { $ref: '#/definitions/objectRef', description: 'The referenced resource.' } },
        },
      ],
    },
    configurableRefItem: {
      description: 'A reference, or {ref, config?}: config is shallow-merged over the resource\'s spec.config for this agent.',
      anyOf: [
        { $ref: '#/definitions/objectRef' },
        {
          type: 'object',
          description: 'A list item holding a reference and per-agent settings.',
          additionalProperties: false,
          required: ['ref'],
          properties: {
            ref: { $ref: '#/definitions/objectRef', description: 'The referenced resource.' },
            config: { type: 'object', description: "Shallow-merged over the resource's spec.config for this agent." },
          },
        },
      ],
    },
  },
};
