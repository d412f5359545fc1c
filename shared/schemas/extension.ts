/** Extension: middleware and dynamic tools loaded into an agent process (SPEC.md §4). */
import { resourceSchema } from './resource-envelope.ts';

export const extensionSchema = resourceSchema('Extension', 'A module whose register(api, config) adds middleware or tools to an agent.', {
  type: 'object',
  description: 'Entry module and its settings.',
  additionalProperties: false,
  required: ['entry'],
  properties: {
    entry: {
      type: 'string',
      minLength: 1,
      description: 'Module exporting register(api, config), relative to the bundle root. Always run with Bun.',
    },
    config: { type: 'object', description: 'Passed to register() as config; agents may override keys per extension.' },
  },
});
