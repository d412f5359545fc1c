/** Agent: one LLM persona with its model, prompt, tools and extensions (SPEC.md §1.2). */
import { commonRef } from './common.ts';
import { refsRef } from './refs.ts';
import { resourceSchema } from './resource-envelope.ts';

export const agentSchema = resourceSchema('Agent', 'An LLM agent: model, system prompt, tools and extensions.', {
  type: 'object',
  description: 'How the agent thinks and what it may use.',
  additionalProperties: false,
  required: ['modelConfig'],
  properties: {
    modelConfig: {
      type: 'object',
      description: 'The model and its sampling parameters.',
      additionalProperties: false,
      required: ['modelRef'],
      properties: {
        modelRef: { ...refsRef('objectRef'), description: 'The Model, e.g. "Model/default".' },
        params: {
          type: 'object',
          description: 'Sampling parameters passed to the model.',
          additionalProperties: false,
          properties: {
            temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Sampling temperature, 0–2.' },
            maxTokens: { type: 'integer', exclusiveMinimum: 0, description: 'Maximum output tokens per step.' },
            topP: { type: 'number', minimum: 0, maximum: 1, description: 'Nucleus sampling, 0–1.' },
          },
        },
      },
    },
    prompt: {
      type: 'object',
      description: 'The system prompt: system (inline) or systemRef (a file), not both.',
      additionalProperties: false,
      properties: {
        system: { type: 'string', description: 'System prompt text.' },
        systemRef: { type: 'string', minLength: 1, description: 'File holding the system prompt, relative to the bundle root.' },
      },
    },
    prompts: {
      type: 'object',
      description: 'The upstream (goondan v0.0.3) spelling of prompt: systemPrompt (inline) or systemRef (a file), not both. Use one of prompt / prompts.',
      additionalProperties: false,
      properties: {
        systemPrompt: { type: 'string', description: 'System prompt text.' },
        systemRef: { type: 'string', minLength: 1, description: 'File holding the system prompt, relative to the bundle root.' },
      },
    },
    tools: {
      type: 'array',
      description: 'Tools in the agent\'s catalog: refs, or {ref, config} to override the tool\'s config.',
      items: refsRef('configurableRefItem'),
    },
    extensions: {
      type: 'array',
      description: 'Extensions in registration order (context-message is attached first unless listed).',
      items: refsRef('configurableRefItem'),
    },
    maxToolResultBytes: {
      type: 'integer',
      minimum: 1024,
      description:
        'A tool result larger than this (bytes of its text) is cut in the conversation, with a marker, and saved whole as a file in the workspace the model can page through with file-system__read (default 65536). A Tool may set its own maxResultBytes.',
    },
    toolPolicy: { ...commonRef('toolPolicy'), description: 'This agent\'s tool permission rules, added to the swarm\'s policy.tools (attaches tool-policy).' },
    sandbox: { ...commonRef('sandbox'), description: 'This agent\'s sandbox settings, over the swarm\'s policy.sandbox field by field; a tool ref\'s config.sandbox narrows or widens it per tool.' },
    requiredTools: {
      type: 'array',
      description: 'Tool names ("tool__export"); a turn may not end before one of them succeeded (attaches required-tools-guard).',
      items: { type: 'string', minLength: 1 },
    },
  },
});
