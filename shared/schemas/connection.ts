/** Connection: binds a Connector to a Swarm with settings, secrets and ingress routing (SPEC.md §1.2, §6). */
import { commonRef } from './common.ts';
import { refsRef } from './refs.ts';
import { resourceSchema } from './resource-envelope.ts';

const valueSourceMap = (description: string) => ({
  type: 'object',
  description,
  additionalProperties: commonRef('valueSource'),
});

export const connectionSchema = resourceSchema('Connection', 'Runs a Connector for a Swarm and routes its events to agents.', {
  type: 'object',
  description: 'Connector, target swarm, settings and ingress rules.',
  additionalProperties: false,
  required: ['connectorRef'],
  properties: {
    connectorRef: { ...refsRef('objectRef'), description: 'The Connector, e.g. {kind: Connector, name: cli, package: "@goondan/base"}.' },
    swarmRef: { ...refsRef('objectRef'), description: 'Target swarm (default the first swarm of the bundle).' },
    config: valueSourceMap('Settings handed to the connector (ValueSources).'),
    secrets: valueSourceMap('Secrets handed to the connector (ValueSources; never logged).'),
    ingress: {
      type: 'object',
      description: 'How events reach agents.',
      additionalProperties: false,
      properties: {
        rules: {
          type: 'array',
          description: 'Checked in order; the first matching rule wins. Without rules events go to the entry agent.',
          items: {
            type: 'object',
            description: 'One routing rule.',
            additionalProperties: false,
            required: ['route'],
            properties: {
              match: {
                type: 'object',
                description: 'Conditions (ANDed, compared as strings); no match = catch-all.',
                additionalProperties: false,
                properties: {
                  event: { type: 'string', description: 'Event name.' },
                  properties: {
                    type: 'object',
                    description: 'Event property values that must match.',
                    additionalProperties: { type: ['string', 'number', 'boolean'] },
                  },
                },
              },
              route: {
                type: 'object',
                description: 'Where a matching event goes.',
                additionalProperties: false,
                properties: {
                  agentRef: { ...refsRef('objectRef'), description: 'Target agent (default the swarm\'s entryAgent); must be in the swarm.' },
                  instanceKey: { type: 'string', minLength: 1, description: 'Fixed instance key (exclusive with instanceKeyProperty).' },
                  instanceKeyProperty: { type: 'string', minLength: 1, description: 'Event property whose value is the instance key.' },
                  instanceKeyPrefix: { type: 'string', description: 'Prefix for the key taken from instanceKeyProperty.' },
                },
              },
            },
          },
        },
      },
    },
  },
});
