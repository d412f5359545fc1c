/** `config` of message-window; defaults live here (extension.yaml mirrors them). */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export interface MessageWindowConfig {
  /** Most messages the model may see, the system prompt included. */
  maxMessages: number;
  /**
   * After a cut, drop further leading messages until the history starts with a user message:
   * several providers reject a conversation that starts with an assistant turn.
   */
  startWithUserMessage: boolean;
}

const schema: JSONSchemaType<MessageWindowConfig> = {
  type: 'object',
  properties: {
    maxMessages: { type: 'integer', minimum: 1, default: 80 },
    startWithUserMessage: { type: 'boolean', default: true },
  },
  required: ['maxMessages', 'startWithUserMessage'],
  additionalProperties: false,
};

export const readMessageWindowConfig = extensionConfigReader<MessageWindowConfig>('message-window', schema);
