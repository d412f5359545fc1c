/**
 * `Model.spec.options` of the real providers, checked with ajv and split by destination: engine
 * knobs (`maxRetries`), per-call `providerOptions` (AI SDK `providerOptions`, keyed by provider)
 * and provider-factory settings (headers, organization, …). Unknown keys are an error so that a
 * typo does not silently do nothing.
 */
import type { JsonObject } from '../../shared/types/json.ts';
import { EngineError } from '../engine/engine-error.ts';
import { describeErrors } from '../../shared/validation/compiled-validator.ts';
import { agentValidator } from '../validation/agent-validator.ts';

export interface ProviderFactorySettings {
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
  organization?: string;
  project?: string;
  name?: string;
  includeUsage?: boolean;
  supportsStructuredOutputs?: boolean;
  authToken?: string;
}

export interface ModelOptions extends ProviderFactorySettings {
  maxRetries?: number;
  providerOptions?: Record<string, JsonObject>;
}

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

const validateModelOptions = agentValidator<ModelOptions>({
  type: 'object',
  additionalProperties: false,
  properties: {
    maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
    providerOptions: { type: 'object', additionalProperties: { type: 'object' } },
    headers: stringMap,
    queryParams: stringMap,
    organization: { type: 'string' },
    project: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    includeUsage: { type: 'boolean' },
    supportsStructuredOutputs: { type: 'boolean' },
    authToken: { type: 'string' },
  },
});

export const DEFAULT_MAX_RETRIES = 2;

export function parseModelOptions(modelName: string, options: JsonObject): { options: ModelOptions; factory: ProviderFactorySettings } {
  if (!validateModelOptions(options)) {
    throw new EngineError({
      code: 'E_MODEL_CONFIG',
      message: `Model '${modelName}': invalid spec.options: ${describeErrors(validateModelOptions.errors, 'options')}`,
      suggestion:
        'Allowed keys: maxRetries, providerOptions (per-call provider options keyed by provider, e.g. { openai: { … } }), headers, queryParams, organization, project, name, includeUsage, supportsStructuredOutputs, authToken.',
    });
  }
  const { maxRetries: _maxRetries, providerOptions: _providerOptions, ...factory } = options;
  return { options, factory };
}
