/**
 * Who started which agent instance (by calling or spawning it) — what `agents__list` shows by
 * default (SPEC.md §2.6: a caller's own spawns). The first starter stays the owner.
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';

export interface InstanceOwner {
  ownerAgent?: string;
  ownerInstanceKey?: string;
  createdAt: string;
  cwd?: string;
}

export class InstanceOwners {
  private readonly owners = new Map<string, InstanceOwner>();

  /** Records the owner unless the instance already has one. */
  record(instance: AgentId, owner: Omit<InstanceOwner, 'createdAt'>): void {
    const key = agentKey(instance);
    if (!this.owners.has(key)) this.owners.set(key, { ...owner, createdAt: new Date().toISOString() });
  }

  get(instance: AgentId): InstanceOwner | undefined {
    return this.owners.get(agentKey(instance));
  }
}
