/**
 * Partition ownership through the leases bucket: `p<N> → {node, epoch}`. The owner renews with a
 * compare-and-set on the revision it holds; a lease this node has not seen rewritten within the
 * timeout may be taken by compare-and-set with epoch + 1; a release deletes it (CAS) so another
 * node claims it at once. A failed renewal means someone else took it: the partition is lost —
 * unless the lease still names this node and epoch: then an earlier renewal of ours landed and only
 * its answer was lost (a NATS restart, a timeout), and no one else wrote it (a takeover bumps the epoch).
 */
import type { KV } from '@nats-io/kv';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { ClusterNames } from './cluster-names.ts';
import type { KvObserver } from './kv-observer.ts';
import { decodeJson, encodeJson, isWrongRevision } from './kv-json.ts';

export interface LeaseRecord {
  node: string;
  epoch: number;
}

const isLeaseRecord = compiledValidator<LeaseRecord>({
  schema: {
    type: 'object',
    required: ['node', 'epoch'],
    properties: { node: { type: 'string' }, epoch: { type: 'integer', minimum: 0 } },
  },
});

export interface HeldLease {
  partition: number;
  epoch: number;
  revision: number;
  /** Handing over: renewed until the release completes, never re-claimed meanwhile. */
  releasing: boolean;
  /** This node's clock at the last successful write. */
  renewedAt: number;
}

export class PartitionLeases {
  readonly held = new Map<number, HeldLease>();

  constructor(
    private readonly kv: KV,
    private readonly observer: KvObserver,
    private readonly names: ClusterNames,
    private readonly nodeId: string,
    private readonly timeoutMs: number,
    private readonly logger: RootLogger,
  ) {}

  /**
   * Renews a held lease: `lost` when another node wrote it since (or it could not be renewed for a
   * whole timeout, so another node may have it); `unreachable` while NATS does not answer.
   */
  async renew(lease: HeldLease): Promise<'renewed' | 'lost' | 'unreachable'> {
    try {
      lease.revision = await this.write(lease.partition, lease.epoch, lease.revision);
      lease.renewedAt = Date.now();
      return 'renewed';
    } catch (error) {
      const conflict = isWrongRevision(error);
      if (conflict && (await this.stillOurs(lease))) return this.renew(lease);
      if (!conflict && Date.now() - lease.renewedAt <= this.timeoutMs) return 'unreachable';
      this.logger.warn({ partition: lease.partition, epoch: lease.epoch, err: error }, 'partition lease could not be renewed; another node may own it now');
      this.held.delete(lease.partition);
      return 'lost';
    }
  }

  /** Claims a free or expired lease; undefined when it is not (yet) free or someone was faster. */
  async claim(partition: number): Promise<HeldLease | undefined> {
    const key = this.names.leaseKey(partition);
    const seen = this.observer.entries.get(key);
    const current = seen?.operation === 'PUT' ? decodeJson(seen.value, isLeaseRecord) : undefined;
    const free = seen === undefined || seen.operation !== 'PUT' || current === undefined;
    // Our own lease from an earlier run of this node id is ours to take back at once.
    const expired = !free && (current?.node === this.nodeId || this.observer.isStale(key, this.timeoutMs));
    if (!free && !expired) return undefined;
    const epoch = (current?.epoch ?? 0) + 1;
    try {
      const revision = seen === undefined ? await this.create(partition, epoch) : await this.write(partition, epoch, seen.revision);
      const lease: HeldLease = { partition, epoch, revision, releasing: false, renewedAt: Date.now() };
      this.held.set(partition, lease);
      this.logger.info({ partition, epoch, previous: current?.node ?? null }, current ? 'took over an expired partition lease' : 'claimed a partition lease');
      return lease;
    } catch {
      return undefined; // another node claimed it between our look and our write
    }
  }

  /** Deletes the lease (only if still ours) so another node can claim it without waiting. */
  async release(lease: HeldLease): Promise<void> {
    this.held.delete(lease.partition);
    try {
      await this.kv.delete(this.names.leaseKey(lease.partition), { previousSeq: lease.revision });
    } catch (error) {
      this.logger.warn({ partition: lease.partition, err: error }, 'releasing a partition lease failed; it expires after the lease timeout');
    }
  }

  /** Forgets a lease without writing it: the next claim by this node takes it again with a new epoch. */
  drop(partition: number): void {
    this.held.delete(partition);
  }

  /** The node holding `partition` as this node last saw it. */
  holder(partition: number): LeaseRecord | undefined {
    const seen = this.observer.entries.get(this.names.leaseKey(partition));
    return seen?.operation === 'PUT' ? decodeJson(seen.value, isLeaseRecord) : undefined;
  }

  /** Every node a partition lease names, as this node last saw them (expired leases not yet taken over too). */
  holders(): string[] {
    const nodes = new Set<string>();
    for (const entry of this.observer.entries.values()) {
      const record = entry.operation === 'PUT' ? decodeJson(entry.value, isLeaseRecord) : undefined;
      if (record) nodes.add(record.node);
    }
    return [...nodes];
  }

  /** The stored lease is this node's, same epoch: its revision becomes the one held. */
  private async stillOurs(lease: HeldLease): Promise<boolean> {
    const entry = await this.kv.get(this.names.leaseKey(lease.partition)).catch(() => null);
    const record = entry?.operation === 'PUT' ? decodeJson(entry.value, isLeaseRecord) : undefined;
    if (!entry || record?.node !== this.nodeId || record.epoch !== lease.epoch || entry.revision === lease.revision) return false;
    this.logger.info({ partition: lease.partition, epoch: lease.epoch }, 'a lease renewal whose answer was lost had landed; the lease is still ours');
    lease.revision = entry.revision;
    return true;
  }

  private async create(partition: number, epoch: number): Promise<number> {
    const key = this.names.leaseKey(partition);
    const value = encodeJson({ node: this.nodeId, epoch });
    const revision = await this.kv.create(key, value);
    this.observer.noteWrite(key, revision, 'PUT', value);
    return revision;
  }

  private async write(partition: number, epoch: number, revision: number): Promise<number> {
    const key = this.names.leaseKey(partition);
    const value = encodeJson({ node: this.nodeId, epoch });
    const next = await this.kv.update(key, value, revision);
    this.observer.noteWrite(key, next, 'PUT', value);
    return next;
  }
}
