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
    pricing: {
      type: 'object',
      description:
        'What a call costs. Every model call is priced from its token usage; the cost appears in step.completed / turn.completed events, /metrics (goondan_cost_total), goondan ps, and counts toward Swarm.spec.policy.budget cost limits.',
      additionalProperties: false,
      required: ['inputPerMillionTokens', 'outputPerMillionTokens', 'currency'],
      properties: {
        inputPerMillionTokens: { type: 'number', minimum: 0, description: 'Price of one million input (prompt) tokens.' },
        outputPerMillionTokens: { type: 'number', minimum: 0, description: 'Price of one million output (completion) tokens.' },
        cachedInputPerMillionTokens: {
          type: 'number',
          minimum: 0,
          description: 'Price of one million input tokens served from the provider\'s prompt cache (default: inputPerMillionTokens).',
        },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code of the prices, e.g. USD.' },
      },
    },
    rateLimit: {
      type: 'object',
      description:
        'One limiter in the orchestrator shared by every agent process that uses this Model. Each agent asks the orchestrator before each call. A provider 429 with Retry-After pauses the Model for all of them. `rateLimit: {}` turns on only that shared pause.',
      additionalProperties: false,
      properties: {
        requestsPerMinute: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'Calls per minute, spread evenly: the bucket holds one second\'s share (at least one call), so 6 admits about one call every 10 s, never a burst of 6.',
        },
        tokensPerMinute: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'Input + output tokens per minute, spread evenly like requestsPerMinute. A call is charged its real usage when it ends; while the bucket is in debt, calls wait.',
        },
        maxConcurrent: { type: 'integer', minimum: 1, description: 'Calls in flight at once across all agents using this Model.' },
      },
    },
  },
});
