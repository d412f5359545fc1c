/**
 * `config` of tool-policy: what the config plane composes from `Swarm.spec.policy.tools` and
 * `Agent.spec.toolPolicy` (rules tagged with their `source`), or what an agent lists itself.
 * Unknown keys are rejected (E_EXT_CONFIG) like in every built-in extension's config.
 */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';
import type { Policy, PolicyRule } from './policy-rules.ts';

export interface PolicyConfig extends Policy {
  /** Seconds a human has to answer an `ask`; then it is a deny. */
  askTimeoutSeconds?: number;
}

const action = { type: 'string', enum: ['allow', 'ask', 'deny'] } as const;

const ruleSchema: JSONSchemaType<PolicyRule> = {
  type: 'object',
  properties: {
    tool: { type: 'string', minLength: 1 },
    action,
    args: { type: 'object', additionalProperties: { type: 'string' }, required: [], nullable: true },
    reason: { type: 'string', nullable: true },
    source: { type: 'string', nullable: true },
  },
  required: ['tool', 'action'],
  additionalProperties: false,
};

const schema: JSONSchemaType<PolicyConfig> = {
  type: 'object',
  properties: {
    default: { ...action, default: 'ask' },
    rules: { type: 'array', items: ruleSchema, default: [] },
    askTimeoutSeconds: { type: 'integer', minimum: 1, nullable: true },
  },
  required: ['default', 'rules'],
  additionalProperties: false,
};

export const readPolicyConfig = extensionConfigReader<PolicyConfig>('tool-policy', schema);
