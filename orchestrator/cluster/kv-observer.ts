/**
 * A live view of one KV bucket (membership or leases), with when this node last saw each key
 * change. Expiry is judged by "not rewritten for T on my own clock", never by comparing
 * timestamps written by other machines: clock skew between nodes cannot steal a live lease.
 */
import { type KV, KvWatchInclude } from '@nats-io/kv';
import type { RootLogger } from '../../shared/logger.ts';

export interface ObservedEntry {
  key: string;
  revision: number;
  operation: 'PUT' | 'DEL' | 'PURGE';
  value: Uint8Array;
  /** This node's clock when the revision was first seen. */
  seenAt: number;
}

export class KvObserver {
  readonly entries = new Map<string, ObservedEntry>();
  private stopped = false;
  private stopWatch: (() => void) | undefined;

  private constructor(
    readonly kv: KV,
    private readonly logger: RootLogger,
  ) {}

  static async start(kv: KV, logger: RootLogger): Promise<KvObserver> {
    const observer = new KvObserver(kv, logger);
    await observer.watch();
    return observer;
  }

  /** Not rewritten for `timeoutMs` as this node has seen it (a fresh observer waits a full timeout). */
  isStale(key: string, timeoutMs: number, now = Date.now()): boolean {
    const entry = this.entries.get(key);
    return entry === undefined || now - entry.seenAt > timeoutMs;
  }

  /**
   * After this node was cut off from NATS, nothing it saw then can prove another node dead: every
   * entry counts as just seen, so a reconnect never starts a grab for the others' partitions.
   */
  refresh(now = Date.now()): void {
    for (const entry of this.entries.values()) entry.seenAt = now;
  }

  /** A write of ours: known at once, without waiting for the watch to echo it. */
  noteWrite(key: string, revision: number, operation: ObservedEntry['operation'], value: Uint8Array): void {
    this.record({ key, revision, operation, value, seenAt: Date.now() });
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
  }

  private async watch(): Promise<void> {
    const iterator = await this.kv.watch({ include: KvWatchInclude.LastValue });
    this.stopWatch = () => iterator.stop();
    void (async () => {
      for await (const entry of iterator) {
        this.record({ key: entry.key, revision: entry.revision, operation: entry.operation, value: entry.value, seenAt: Date.now() });
      }
      if (!this.stopped) this.logger.warn({ bucket: this.kv }, 'KV watch ended unexpectedly');
    })();
  }

  private record(entry: ObservedEntry): void {
    const known = this.entries.get(entry.key);
    // A watch replayed after a reconnect repeats revisions it already showed: no fresh sighting.
    if (known && known.revision >= entry.revision) return;
    this.entries.set(entry.key, entry);
  }
}
