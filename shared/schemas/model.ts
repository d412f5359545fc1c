/** Model: which LLM an agent talks to (SPEC.md §1.2, ARCHITECTURE §4 "Model adapters"). */
import { commonRef } from './common.ts';
import { resourceSchema } from './resource-envelope.ts';

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible', 'mock'];

export const modelSchema = resourceSchema('Model', 'An LLM endpoint that agents reference through modelConfig.modelRef.', {
  type: 'object',
  description: 'Provider, model id and connection settings.',
  additionalProperties: false,
  required: ['provider', 'model'],
  properties: {
    provider: {
      type: 'string',
      enum: MODEL_PROVIDERS,
      description: 'Adapter: openai, anthropic, google, openai-compatible (Ollama, vLLM, LM Studio…) or mock (scripted, no network).',
    },
    model: { type: 'string', minLength: 1, description: 'Model id as the provider names it, e.g. "gpt-4o-mini".' },
    apiKey: { ...commonRef('valueSource'), description: 'API key (a ValueSource; prefer valueFrom.env). Never logged.' },
    endpoint: { type: 'string', minLength: 1, description: 'Base URL of the provider API (required for openai-compatible servers).' },
    options: { type: 'object', description: 'Provider-specific settings, passed through to the adapter (for mock: its script).' },
    capabilities: {
      type: 'object',
      description: 'What the model can do. An agent with tools needs toolCalling not set to false.',
      additionalProperties: { type: 'boolean' },
      properties: {
        streaming: { type: 'boolean', description: 'The model can stream its output.' },
        toolCalling: { type: 'boolean', description: 'The model can call tools (default assumed true).' },
      },
    },
  },
});
