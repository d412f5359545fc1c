/**
 * Who started which agent instance (by calling or spawning it) — what `agents__list` shows by
 * default (SPEC.md §2.6: a caller's own spawns). The first starter stays the owner.
 */
import { callNode } from '../../shared/ipc/request-metadata.ts';

export interface InstanceOwner {
  ownerAgent?: string;
  ownerInstanceKey?: string;
  createdAt: string;
  cwd?: string;
}

export class InstanceOwners {
  private readonly owners = new Map<string, InstanceOwner>();

  /** Records the owner unless the instance already has one. */
  record(agent: string, instanceKey: string, owner: Omit<InstanceOwner, 'createdAt'>): void {
    const node = callNode(agent, instanceKey);
    if (!this.owners.has(node)) this.owners.set(node, { ...owner, createdAt: new Date().toISOString() });
  }

  get(agent: string, instanceKey: string): InstanceOwner | undefined {
    return this.owners.get(callNode(agent, instanceKey));
  }
}
