/** Package: optional first document of goondan.yaml naming the bundle (SPEC.md §1.2). */
import { resourceSchema } from './resource-envelope.ts';

export const packageSchema = resourceSchema(
  'Package',
  'Names the bundle as a package; if present it must be the first document of goondan.yaml.',
  {
    type: 'object',
    description: 'Package metadata.',
    additionalProperties: false,
    properties: {
      version: {
        type: 'string',
        description: 'Semantic version, e.g. "0.1.0" (quote it in YAML).',
        pattern: '^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$',
      },
      description: { type: 'string', description: 'One line about the package.' },
      access: { type: 'string', enum: ['public', 'restricted'], description: 'Registry visibility.' },
      dependencies: {
        type: 'array',
        description: 'Packages this one uses (@goondan/base is always available).',
        items: {
          type: 'object',
          description: 'One dependency.',
          additionalProperties: false,
          required: ['name', 'version'],
          properties: {
            name: { type: 'string', description: 'Package name.' },
            version: { type: 'string', description: 'Version range.' },
          },
        },
      },
      registry: {
        type: 'object',
        description: 'Registry to publish to.',
        additionalProperties: false,
        required: ['url'],
        properties: { url: { type: 'string', description: 'Registry URL.' } },
      },
    },
  },
  false,
);
