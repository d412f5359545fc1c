/** Connector: a process that turns an external protocol into events (SPEC.md §6). */
import { resourceSchema } from './resource-envelope.ts';

export const connectorSchema = resourceSchema('Connector', 'An event source (CLI, webhook, chat…) run as its own process per Connection.', {
  type: 'object',
  description: 'Entry module and the events it emits.',
  additionalProperties: false,
  required: ['entry', 'events'],
  properties: {
    entry: { type: 'string', minLength: 1, description: 'Module with `export default async (ctx) => …`, relative to the bundle root.' },
    events: {
      type: 'array',
      description: 'Events this connector emits; names unique.',
      items: {
        type: 'object',
        description: 'One event type.',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, description: 'Event name, e.g. "stdin_message".' },
          properties: {
            type: 'object',
            description: 'Properties the event carries (ingress rules may match and route on them).',
            additionalProperties: {
              type: 'object',
              description: 'One event property.',
              additionalProperties: false,
              required: ['type'],
              properties: {
                type: { type: 'string', enum: ['string', 'number', 'boolean'], description: 'Property type.' },
                optional: { type: 'boolean', description: 'The property may be absent.' },
              },
            },
          },
        },
      },
    },
  },
});
