/**
 * The one place a missing instanceKey gets its default (ARCHITECTURE §5): a call from an agent
 * goes to the caller's own key, anything from outside the swarm (HTTP, `send`, one-shot runs,
 * connectors) to DEFAULT_INSTANCE_KEY.
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';

export const DEFAULT_INSTANCE_KEY = 'default';

export function targetOf(agent: string, instanceKey: string | undefined, caller?: AgentId): AgentId {
  return { agent, instanceKey: instanceKey ?? caller?.instanceKey ?? DEFAULT_INSTANCE_KEY };
}
