/**
 * `config` of context-message (SPEC.md §5.4); defaults live here (extension.yaml mirrors them).
 * `includeSwarmCatalog` is the upstream name of `includeCatalog`, accepted so upstream bundles run
 * unchanged; when set it wins (extension.yaml never sets it, so only an agent's config can).
 */
import type { JSONSchemaType } from 'ajv';
import { extensionConfigReader } from '../extension-config.ts';

export interface ContextMessageConfig {
  /** The agent's `prompt.system` (or systemRef text) opens the message. */
  includeAgentPrompt: boolean;
  /** `[runtime_catalog]`: the swarm, this agent, the entry agent and the agents it may call. */
  includeCatalog: boolean;
  /** `[runtime_inbound]`: the event that started the turn. */
  includeInbound: boolean;
  /** `[runtime_call]`: the calling agent, when another agent asked. */
  includeCall: boolean;
}

interface RawContextMessageConfig extends ContextMessageConfig {
  includeSwarmCatalog?: boolean;
}

const schema: JSONSchemaType<RawContextMessageConfig> = {
  type: 'object',
  properties: {
    includeAgentPrompt: { type: 'boolean', default: true },
    includeCatalog: { type: 'boolean', default: false },
    includeSwarmCatalog: { type: 'boolean', nullable: true },
    includeInbound: { type: 'boolean', default: false },
    includeCall: { type: 'boolean', default: true },
  },
  required: ['includeAgentPrompt', 'includeCatalog', 'includeInbound', 'includeCall'],
  additionalProperties: false,
};

const readRaw = extensionConfigReader<RawContextMessageConfig>('context-message', schema);

export function readContextMessageConfig(config: unknown): ContextMessageConfig {
  const { includeSwarmCatalog, ...rest } = readRaw(config);
  return { ...rest, includeCatalog: includeSwarmCatalog ?? rest.includeCatalog };
}
