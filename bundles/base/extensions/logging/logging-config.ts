/** `config` of logging; defaults live here (extension.yaml mirrors them). */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LoggingConfig {
  /** Level of the start / completion lines; failures are always `error`, error results `warn`. */
  level: LogLevel;
  /** Put tool arguments on `tool.called` lines (secret-looking keys redacted, long strings cut). */
  includeToolArgs: boolean;
  /** With includeToolArgs: longest string value kept in a logged argument. */
  maxArgCharacters: number;
}

const schema: JSONSchemaType<LoggingConfig> = {
  type: 'object',
  properties: {
    level: { type: 'string', enum: ['debug', 'info', 'warn', 'error'], default: 'info' },
    includeToolArgs: { type: 'boolean', default: false },
    maxArgCharacters: { type: 'integer', minimum: 1, default: 200 },
  },
  required: ['level', 'includeToolArgs', 'maxArgCharacters'],
  additionalProperties: false,
};

export const readLoggingConfig = extensionConfigReader<LoggingConfig>('logging', schema);
