/**
 * Cluster membership: every node rewrites its record in the members bucket each tick; a member
 * is live while its record keeps changing (KvObserver). A draining node says so and drops out of
 * the partition assignment at once, before its leases are released.
 *
 * A node that stops gracefully does not remove its record: it marks it departed. Its event ledger,
 * on its disk, holds the records of the events it accepted (settled ones for 24 h, unsettled ones
 * until their outcome reaches it), and the other nodes cannot tell which ids those are; a record
 * removed made every lookup of them "no such event" (404), and a caller resent the event under a
 * new key. Departed, it stays known (event-lookup.ts answers 503 for what it may hold) until it
 * comes back under the same id — its first heartbeat rewrites the record — or on the same disk
 * under another id (node-disk.ts: that node forgets it), or an operator removes the record of a
 * node retired for good (deploy/cluster/README.md). So does a killed node's record, not departed:
 * the node back on its disk forgets it once it has not been heard from for a lease timeout (its
 * default id, `hostname-pid`, changes with each start: kept, every lookup of an id nobody
 * accepted stayed 503 for good, naming a node that would never answer).
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
  /** Stopped gracefully, not back yet (absent in records of nodes before this field). */
  departed?: boolean;
  /** The disk its event records are on (node-disk.ts; absent in records of nodes before this field). */
  disk?: string;
}

const isMemberRecord = compiledValidator<MemberRecord>({
  schema: {
    type: 'object',
    required: ['node', 'apiUrl', 'draining', 'startedAt', 'beat'],
    properties: {
      node: { type: 'string' },
      apiUrl: { type: 'string' },
      draining: { type: 'boolean' },
      startedAt: { type: 'string' },
      beat: { type: 'integer' },
      departed: { type: 'boolean' },
      disk: { type: 'string' },
    },
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
    private readonly disk: string,
  ) {}

  async heartbeat(): Promise<void> {
    await this.write({ node: this.nodeId, apiUrl: this.apiUrl(), draining: this.draining, startedAt: this.startedAt, beat: ++this.beat, disk: this.disk });
    await this.forgetEarlierSelves();
  }

  /**
   * Records on this node's disk under another id, departed or not heard from for a lease timeout
   * (killed): this node answers for their events now. Deleted at the revision seen.
   */
  private async forgetEarlierSelves(): Promise<void> {
    for (const [key, entry] of this.observer.entries) {
      if (key === this.nodeId) continue;
      const record = recordOf(entry);
      if (record?.disk !== this.disk || !(record.departed || this.observer.isStale(key, this.timeoutMs))) continue;
      // Rewritten meanwhile (wrong revision) it stays; NATS not answering fails no heartbeat: the next beat tries again.
      await this.kv.delete(key, { previousSeq: entry.revision }).catch(() => undefined);
    }
  }

  private async write(record: MemberRecord): Promise<void> {
    const value = encodeJson(record);
    const revision = await this.kv.put(this.nodeId, value);
    this.observer.noteWrite(this.nodeId, revision, 'PUT', value);
  }

  /** Nodes that may own partitions now (this one included unless it drains). */
  live(now = Date.now()): string[] {
    const nodes: string[] = [];
    for (const [key, entry] of this.observer.entries) {
      const record = recordOf(entry);
      if (!record || record.draining) continue;
      if (key !== this.nodeId && this.observer.isStale(key, this.timeoutMs, now)) continue;
      nodes.push(key);
    }
    if (!this.draining && !nodes.includes(this.nodeId)) nodes.push(this.nodeId);
    return nodes.sort();
  }

  /**
   * Every node with a record in the bucket, live, not heard from lately (killed, cut off) or departed
   * (stopped gracefully): those that may hold what they accepted.
   */
  known(): string[] {
    const nodes = new Set([this.nodeId]);
    for (const [key, entry] of this.observer.entries) if (entry.operation === 'PUT') nodes.add(key);
    return [...nodes].sort();
  }

  /** Nodes whose record says they stopped gracefully and have not come back (this one never). */
  departed(): string[] {
    const nodes: string[] = [];
    for (const [key, entry] of this.observer.entries) if (key !== this.nodeId && recordOf(entry)?.departed) nodes.push(key);
    return nodes.sort();
  }

  /** The disk `node`'s record names (undefined without a record, or for a node before disks). */
  diskOf(node: string): string | undefined {
    if (node === this.nodeId) return this.disk;
    return recordOf(this.observer.entries.get(node))?.disk;
  }

  /** The disks the member records name (live or departed), as this node sees them. */
  disks(): Set<string> {
    const disks = new Set([this.disk]);
    for (const node of this.known()) {
      const disk = this.diskOf(node);
      if (disk !== undefined) disks.add(disk);
    }
    return disks;
  }

  /** The same, read from the bucket now (`keys`: every key it holds): this node's view may not have caught up yet (just started). */
  async recordedDisks(keys: readonly string[]): Promise<Set<string>> {
    const disks = new Set([this.disk]);
    for (const key of keys) {
      const disk = recordOf(await this.kv.get(key))?.disk;
      if (disk !== undefined) disks.add(disk);
    }
    return disks;
  }

  /** Stopping gracefully: the record stays, marked departed (not live, still known), until this node is back. */
  async leave(): Promise<void> {
    await this.write({ node: this.nodeId, apiUrl: this.apiUrl(), draining: true, startedAt: this.startedAt, beat: ++this.beat, departed: true, disk: this.disk });
  }
}

/** A member record as the bucket holds it: undefined for a deletion, a missing key or a malformed value. */
function recordOf(entry: { operation: string; value: Uint8Array } | null | undefined): MemberRecord | undefined {
  return entry?.operation === 'PUT' ? decodeJson(entry.value, isMemberRecord) : undefined;
}
