/**
 * Which inbox messages of a deleted instance an owner had taken when its deletion began — running
 * there, or queued behind a running turn — and not finished: a stream sequence at or below which
 * each of them lies (ClusterInbox.takenThrough), kept in a KV bucket under the instance's state
 * key. instance-deletion.ts writes it before the tombstone; a node that pulls such a message again
 * (its owner died or was cut off with it) gives the event up with INSTANCE_DELETED instead of
 * running it in the new conversation (partition-owner.ts). Before, it ran there: a tool its turn
 * had called ran again, and its caller got a reply from a conversation that should not exist.
 * Stream sequences, not clocks. A message no owner had taken yet (accepted while the partition had
 * no live owner, e.g. at the moment of the delete) was never started: it runs in the new
 * conversation, as an event sent after the delete does.
 */
import type { KV } from '@nats-io/kv';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { ClusterNames } from './cluster-names.ts';
import { decodeJson, encodeJson } from './kv-json.ts';

interface Mark {
  v: 1;
  /** The instance's messages up to this inbox stream sequence are given up. */
  deletedThrough: number;
}

const isMark = compiledValidator<Mark>({
  schema: { type: 'object', required: ['v', 'deletedThrough'], properties: { v: { const: 1 }, deletedThrough: { type: 'integer', minimum: 0 } } },
});

/** Takes a mark back: the deletion it was written for did not happen. */
export type Withdrawal = () => Promise<void>;

export interface DeletionMarksDeps {
  kv: KV;
  names: ClusterNames;
  /** The stream sequence up to which the instance's messages still in its inbox were taken by an owner; undefined when none was. */
  takenThrough(partition: number, id: AgentId): Promise<number | undefined>;
}

export class DeletionMarks {
  constructor(private readonly deps: DeletionMarksDeps) {}

  /** Marks the instance's messages taken so far as given up; resolves with how to take the mark back. */
  async mark(partition: number, id: AgentId): Promise<Withdrawal> {
    const last = await this.deps.takenThrough(partition, id);
    // No owner holds anything of it: there is nothing to give up.
    if (last === undefined) return async () => undefined;
    const key = this.deps.names.stateKey(partition, id);
    const previous = await this.deps.kv.get(key);
    const revision = await this.deps.kv.put(key, encodeJson({ v: 1, deletedThrough: last } satisfies Mark));
    return async () => {
      // Compare-and-set on our own write: a later deletion's mark stays.
      if (previous?.operation === 'PUT') await this.deps.kv.update(key, previous.value, revision);
      else await this.deps.kv.delete(key, { previousSeq: revision });
    };
  }

  /** Up to which inbox stream sequence a deletion gave the instance's messages up; 0 when none did. */
  async deletedThrough(partition: number, id: AgentId): Promise<number> {
    const entry = await this.deps.kv.get(this.deps.names.stateKey(partition, id));
    if (!entry || entry.operation !== 'PUT') return 0;
    return decodeJson(entry.value, isMark)?.deletedThrough ?? 0;
  }
}
