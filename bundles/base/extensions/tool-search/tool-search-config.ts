/** `config` of tool-search; defaults live here (extension.yaml mirrors them). */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export interface ToolSearchConfig {
  /** Most matches one search returns (and selects). */
  maxResults: number;
  /** Tools that stay in the catalog whatever is selected (e.g. a reply tool the agent must call). */
  alwaysInclude: string[];
}

const schema: JSONSchemaType<ToolSearchConfig> = {
  type: 'object',
  properties: {
    maxResults: { type: 'integer', minimum: 1, default: 10 },
    alwaysInclude: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
  },
  required: ['maxResults', 'alwaysInclude'],
  additionalProperties: false,
};

export const readToolSearchConfig = extensionConfigReader<ToolSearchConfig>('tool-search', schema);
