/**
 * Which instances have a tool approval nobody has decided yet, in a KV bucket every node watches
 * (key: the instance's state key, so one partition's marks share a prefix; value: its agent,
 * instance key and whether it waits — a put either way, so that each write's revision is known
 * here). A node that takes a partition over restores the marked instances of it at once
 * (partition-owner.ts), so their approvals are held — listed, and decided through any node — from
 * the takeover on. Before, the new owner picked an instance's approvals up only with its next event
 * (the redelivery of the turn that waits): a decision in between was told 404 "already decided or
 * expired" while the approval was pending and stored.
 *
 * The holder of an instance writes its mark as its approvals change (only a change from what the
 * bucket shows); an instance restored without a pending approval clears a mark left behind (by a
 * deletion, or a holder that died between a decision and the mark's removal).
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { ClusterNames } from './cluster-names.ts';
import { decodeJson, encodeJson } from './kv-json.ts';
import type { KvObserver } from './kv-observer.ts';

interface Mark {
  v: 1;
  agent: string;
  instanceKey: string;
  pending: boolean;
}

const isMark = compiledValidator<Mark>({
  schema: {
    type: 'object',
    required: ['v', 'agent', 'instanceKey', 'pending'],
    properties: { v: { const: 1 }, agent: { type: 'string', minLength: 1 }, instanceKey: { type: 'string', minLength: 1 }, pending: { type: 'boolean' } },
  },
});

export class PendingApprovalMarks {
  /** Writes of one mark run in order: each compares with what the one before it wrote. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly view: KvObserver,
    private readonly names: ClusterNames,
  ) {}

  /** The instances of `partition` marked as waiting for a decision, as this node last saw the bucket. */
  of(partition: number): AgentId[] {
    const prefix = `${partition}.`;
    const out: AgentId[] = [];
    for (const [key, entry] of this.view.entries) {
      if (!key.startsWith(prefix) || entry.operation !== 'PUT') continue;
      const mark = decodeJson(entry.value, isMark);
      if (mark?.pending) out.push({ agent: mark.agent, instanceKey: mark.instanceKey });
    }
    return out;
  }

  /** Marks the instance (`pending`) or clears its mark; writes nothing when the bucket already says so. */
  set(partition: number, id: AgentId, pending: boolean): Promise<void> {
    const key = this.names.stateKey(partition, id);
    const next = (this.chains.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => this.write(key, id, pending));
    this.chains.set(key, next);
    void next.finally(() => this.chains.get(key) === next && this.chains.delete(key)).catch(() => undefined);
    return next;
  }

  private async write(key: string, id: AgentId, pending: boolean): Promise<void> {
    const seen = this.view.entries.get(key);
    const marked = seen?.operation === 'PUT' && decodeJson(seen.value, isMark)?.pending === true;
    if (pending === marked) return;
    const value = encodeJson({ v: 1, agent: id.agent, instanceKey: id.instanceKey, pending } satisfies Mark);
    this.view.noteWrite(key, await this.view.kv.put(key, value), 'PUT', value);
  }
}
