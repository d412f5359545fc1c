/** `config` of required-tools-guard; defaults live here (extension.yaml mirrors them). */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export const DEFAULT_NUDGE =
  'You have not successfully called any of the required tools yet: {tools}. Call one of them before you finish this turn.';

export interface RequiredToolsGuardConfig {
  /** Full tool names (`tool__export`); ONE successful call of any of them satisfies the guard. */
  requiredTools: string[];
  /** The nudge the model reads; `{tools}` becomes the comma-separated list. */
  errorMessage: string;
}

const schema: JSONSchemaType<RequiredToolsGuardConfig> = {
  type: 'object',
  properties: {
    requiredTools: { type: 'array', items: { type: 'string', pattern: '^[^_]+(_[^_]+)*__[^_]+(_[^_]+)*$' }, default: [] },
    errorMessage: { type: 'string', minLength: 1, default: DEFAULT_NUDGE },
  },
  required: ['requiredTools', 'errorMessage'],
  additionalProperties: false,
};

export const readRequiredToolsGuardConfig = extensionConfigReader<RequiredToolsGuardConfig>('required-tools-guard', schema);
