/** One JSON Schema per Kind (SPEC.md §1.2), keyed by kind. */
import type { JsonObject } from '../types/json.ts';
import type { ResourceKind } from '../types/resources.ts';
import { agentSchema } from './agent.ts';
import { connectionSchema } from './connection.ts';
import { connectorSchema } from './connector.ts';
import { extensionSchema } from './extension.ts';
import { modelSchema } from './model.ts';
import { packageSchema } from './package.ts';
import { swarmSchema } from './swarm.ts';
import { toolSchema } from './tool.ts';

export const KIND_SCHEMAS: Readonly<Record<ResourceKind, JsonObject>> = {
  Model: modelSchema,
  Agent: agentSchema,
  Swarm: swarmSchema,
  Tool: toolSchema,
  Extension: extensionSchema,
  Connector: connectorSchema,
  Connection: connectionSchema,
  Package: packageSchema,
};
