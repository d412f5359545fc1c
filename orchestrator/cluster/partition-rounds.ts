/**
 * A cluster node's periodic round (deploy/cluster/README.md): its heartbeat, then each partition —
 * the lease it holds is renewed (a lost one gives the partition up, one another node should own is
 * handed over), and one it should own and nobody holds is claimed. Cut off from NATS for a whole
 * lease timeout, the node gives every partition up rather than run instances beside a new owner.
 */
import type { RootLogger } from '../../shared/logger.ts';
import type { Membership } from './membership.ts';
import type { PartitionLeases } from './partition-leases.ts';
import type { PartitionOwner } from './partition-owner.ts';
import { rendezvousOwner } from './partitions.ts';

export interface PartitionRoundsDeps {
  nodeId: string;
  partitions: number;
  leaseTimeoutMs: number;
  membership: Pick<Membership, 'heartbeat' | 'live'>;
  leases: PartitionLeases;
  /** What runs a partition's instances here: taken, given up, handed over. */
  owner: Pick<PartitionOwner, 'acquire' | 'lose' | 'handOver'>;
  /** Once a round, after the heartbeat: work that rides on it (turns in progress kept alive, kept outcomes sent again). */
  eachRound(): void;
  /** How long NATS has not answered (0 while connected). */
  downForMs(): number;
  logger: RootLogger;
}

/** Renewal and heartbeat period: a fifth of the lease timeout, within 200 ms – 2 s. */
export function roundMs(leaseTimeoutMs: number): number {
  return Math.min(2_000, Math.max(200, Math.round(leaseTimeoutMs / 5)));
}

export class PartitionRounds {
  /** Partitions this node took over from a node that stopped renewing (not handed over). */
  takeovers = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private draining = false;
  private readonly handOvers = new Map<number, Promise<void>>();

  constructor(private readonly deps: PartitionRoundsDeps) {}

  /** The first round now (this node's partitions are claimed before it serves), then one per period. */
  async start(): Promise<void> {
    await this.round();
    this.timer = setInterval(() => void this.round(), roundMs(this.deps.leaseTimeoutMs));
  }

  /**
   * SIGTERM: a last round hands every held partition over (no lease waits out its timeout);
   * resolves once the hand-overs ended. A round already running is waited for first: as a no-op
   * beside it, the last round would hand nothing over.
   */
  async drain(): Promise<void> {
    this.draining = true;
    await this.running;
    await this.round();
    await Promise.all(this.handOvers.values());
    this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round at a time: a period that comes while one runs gets that one. */
  private round(): Promise<void> {
    this.running ??= this.runRound().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runRound(): Promise<void> {
    try {
      // A draining node has left the assignment already (membership.draining); it only hands over.
      if (!this.draining && !(await this.heartbeat())) return;
      this.deps.eachRound();
      const live = this.deps.membership.live();
      const partitions = Array.from({ length: this.deps.partitions }, (_, partition) => partition);
      // A draining round only renews and hands over, each partition on its own: one after the
      // other, NATS away made a SIGTERM wait a KV timeout (2 s) per held partition.
      if (this.draining) await Promise.all(partitions.map((partition) => this.partitionRound(partition, live)));
      else for (const partition of partitions) await this.partitionRound(partition, live);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'cluster tick failed (NATS unreachable?); retrying');
    }
  }

  /**
   * False while NATS does not answer. Disconnected for a whole lease timeout, this node must assume
   * its partitions were taken over: it stops their instances rather than run them beside a new
   * owner. (A slow answer while connected is not that: others could not have written either.)
   */
  private async heartbeat(): Promise<boolean> {
    const { membership, leases, owner, leaseTimeoutMs, logger } = this.deps;
    try {
      await membership.heartbeat();
      return true;
    } catch (error) {
      const downForMs = this.deps.downForMs();
      logger.warn({ err: error, downForMs }, 'cluster heartbeat failed (NATS unreachable?); retrying');
      if (downForMs > leaseTimeoutMs && leases.held.size > 0) {
        for (const partition of [...leases.held.keys()]) {
          leases.drop(partition);
          await owner.lose(partition);
        }
      }
      return false;
    }
  }

  private async partitionRound(partition: number, live: string[]): Promise<void> {
    const { leases, owner, nodeId, logger } = this.deps;
    const wanted = !this.draining && rendezvousOwner(partition, live) === nodeId;
    const held = leases.held.get(partition);
    if (held) {
      const renewal = await leases.renew(held);
      if (renewal === 'lost') {
        await owner.lose(partition);
        return;
      }
      if (renewal === 'unreachable') return;
      if (!wanted && !held.releasing) {
        held.releasing = true;
        const handOver = owner
          .handOver(partition)
          .then(() => leases.release(held))
          .catch((error: unknown) => logger.error({ partition, err: error }, 'hand-over failed; the lease expires instead'))
          .finally(() => this.handOvers.delete(partition));
        this.handOvers.set(partition, handOver);
      }
      return;
    }
    if (!wanted) return;
    const previous = leases.holder(partition);
    const lease = await leases.claim(partition);
    if (!lease) return;
    if (previous && previous.node !== nodeId) this.takeovers += 1;
    await owner.acquire(partition);
  }
}
