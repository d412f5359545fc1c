/**
 * Cluster membership: every node rewrites its record in the members bucket each tick; a member
 * is live while its record keeps changing (KvObserver). A draining node says so and drops out of
 * the partition assignment at once, before its leases are released.
 */
import type { KV } from '@nats-io/kv';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { KvObserver } from './kv-observer.ts';
import { decodeJson, encodeJson } from './kv-json.ts';

export interface MemberRecord {
  node: string;
  apiUrl: string;
  draining: boolean;
  startedAt: string;
  beat: number;
}

const isMemberRecord = compiledValidator<MemberRecord>({
  schema: {
    type: 'object',
    required: ['node', 'apiUrl', 'draining', 'startedAt', 'beat'],
    properties: { node: { type: 'string' }, apiUrl: { type: 'string' }, draining: { type: 'boolean' }, startedAt: { type: 'string' }, beat: { type: 'integer' } },
  },
});

export class Membership {
  private beat = 0;
  private readonly startedAt = new Date().toISOString();
  draining = false;

  constructor(
    private readonly kv: KV,
    private readonly observer: KvObserver,
    readonly nodeId: string,
    private readonly timeoutMs: number,
    private readonly apiUrl: () => string,
  ) {}

  async heartbeat(): Promise<void> {
    const record: MemberRecord = { node: this.nodeId, apiUrl: this.apiUrl(), draining: this.draining, startedAt: this.startedAt, beat: ++this.beat };
    const value = encodeJson(record);
    const revision = await this.kv.put(this.nodeId, value);
    this.observer.noteWrite(this.nodeId, revision, 'PUT', value);
  }

  /** Nodes that may own partitions now (this one included unless it drains). */
  live(now = Date.now()): string[] {
    const nodes: string[] = [];
    for (const [key, entry] of this.observer.entries) {
      if (entry.operation !== 'PUT') continue;
      const record = decodeJson(entry.value, isMemberRecord);
      if (!record || record.draining) continue;
      if (key !== this.nodeId && this.observer.isStale(key, this.timeoutMs, now)) continue;
      nodes.push(key);
    }
    if (!this.draining && !nodes.includes(this.nodeId)) nodes.push(this.nodeId);
    return nodes.sort();
  }

  /**
   * Every node with a record in the bucket, live or not heard from lately (a node killed keeps its
   * record; one that drained and left does not): those that may hold what they accepted.
   */
  known(): string[] {
    const nodes = new Set([this.nodeId]);
    for (const [key, entry] of this.observer.entries) if (entry.operation === 'PUT') nodes.add(key);
    return [...nodes].sort();
  }

  async leave(): Promise<void> {
    await this.kv.delete(this.nodeId);
  }
}
