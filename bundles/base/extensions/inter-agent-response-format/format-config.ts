/** `config` of inter-agent-response-format; defaults live here (extension.yaml mirrors them). */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export interface InterAgentResponseFormatConfig {
  /** Put the request's correlation id in the header, so the model can tell replies to parallel requests apart. */
  includeRequestId: boolean;
}

const schema: JSONSchemaType<InterAgentResponseFormatConfig> = {
  type: 'object',
  properties: { includeRequestId: { type: 'boolean', default: true } },
  required: ['includeRequestId'],
  additionalProperties: false,
};

export const readInterAgentResponseFormatConfig = extensionConfigReader<InterAgentResponseFormatConfig>('inter-agent-response-format', schema);
