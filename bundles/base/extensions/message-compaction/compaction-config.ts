/** `config` of message-compaction; defaults live here (extension.yaml mirrors them). */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export interface MessageCompactionConfig {
  /** Compaction starts when the conversation holds more messages than this. */
  maxMessages: number;
  /** …or more characters of text, tool arguments and tool results than this. */
  maxCharacters: number;
  /** The newest messages that compaction never touches (extended to keep tool calls whole). */
  retainLastMessages: number;
  /** `remove`: drop every older message; `truncate`: shorten older long messages first, drop only what is still over. */
  mode: 'remove' | 'truncate';
  /** `truncate` mode: length a shortened message keeps; 0 = max(200, maxCharacters / maxMessages). */
  truncateToCharacters: number;
}

const schema: JSONSchemaType<MessageCompactionConfig> = {
  type: 'object',
  properties: {
    maxMessages: { type: 'integer', minimum: 1, default: 40 },
    maxCharacters: { type: 'integer', minimum: 1, default: 12000 },
    retainLastMessages: { type: 'integer', minimum: 0, default: 8 },
    mode: { type: 'string', enum: ['remove', 'truncate'], default: 'remove' },
    truncateToCharacters: { type: 'integer', minimum: 0, default: 0 },
  },
  required: ['maxMessages', 'maxCharacters', 'retainLastMessages', 'mode', 'truncateToCharacters'],
  additionalProperties: false,
};

export const readMessageCompactionConfig = extensionConfigReader<MessageCompactionConfig>('message-compaction', schema);

/** The length a shortened message keeps (see `truncateToCharacters`). */
export function truncationLength(config: MessageCompactionConfig): number {
  if (config.truncateToCharacters > 0) return config.truncateToCharacters;
  return Math.max(200, Math.floor(config.maxCharacters / config.maxMessages));
}
