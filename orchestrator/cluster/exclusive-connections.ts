/**
 * Cluster mode: a connection whose connector holds the provider's connection (a poller: two
 * pollers of one Telegram bot token fight over its updates) runs on one node at a time. Every
 * node still starts the connector — a webhook connector must listen on every node — and a poller
 * asks `ctx.exclusive()` before polling. The connection maps to one of the partitions, and the
 * node holding that partition's lease grants it: the lease machinery already gives one holder,
 * a takeover when it dies and a hand-over when it shuts down. A node giving the partition up
 * restarts the connector it granted, which then waits again for whichever node takes it.
 */
import type { RootLogger } from '../../shared/logger.ts';
import { partitionOf } from './partitions.ts';

/** The synthetic agent name a connection is hashed under (instance key: the connection's name). */
const CONNECTION_SCOPE = 'connection';

/** What this needs of a connector's process (a P). */
export interface ConnectorProcess {
  /** The connection's name. */
  readonly name: string;
  readonly alive: boolean;
}

export interface ExclusiveConnectionsDeps<P extends ConnectorProcess> {
  partitions: number;
  /** This node holds the partition's lease (and has taken it up). */
  holds(partition: number): boolean;
  /** The connector's exclusivity went with the partition: restart it (it asks again). */
  restart(proc: P): void;
  logger: RootLogger;
}

export class ExclusiveConnections<P extends ConnectorProcess> {
  private readonly waiting = new Map<P, { partition: number; grant: () => void }>();
  private readonly granted = new Map<P, number>();

  constructor(private readonly deps: ExclusiveConnectionsDeps<P>) {}

  partitionOf(connection: string): number {
    return partitionOf({ agent: CONNECTION_SCOPE, instanceKey: connection }, this.deps.partitions);
  }

  /** Resolves once `proc` may hold its connection alone: at once when this node holds its partition. */
  request(proc: P): Promise<void> {
    this.forgetDead();
    const partition = this.partitionOf(proc.name);
    if (this.deps.holds(partition)) {
      this.granted.set(proc, partition);
      this.deps.logger.info({ connection: proc.name, partition }, 'connection held here alone');
      return Promise.resolve();
    }
    this.deps.logger.info({ connection: proc.name, partition }, 'connection waits: another node holds it');
    return new Promise((grant) => this.waiting.set(proc, { partition, grant }));
  }

  /** This node took `partition` up: the connections waiting on it may go. */
  acquired(partition: number): void {
    for (const [proc, entry] of this.waiting) {
      if (entry.partition !== partition) continue;
      this.waiting.delete(proc);
      if (!proc.alive) continue;
      this.granted.set(proc, partition);
      this.deps.logger.info({ connection: proc.name, partition }, 'connection held here alone');
      entry.grant();
    }
  }

  /** This node gives `partition` up (hand-over, loss, fencing): its connectors stop holding theirs. */
  released(partition: number): void {
    for (const [proc, held] of this.granted) {
      if (held !== partition) continue;
      this.granted.delete(proc);
      if (!proc.alive) continue;
      this.deps.logger.info({ connection: proc.name, partition }, 'connection given up with its partition: restarting its connector');
      this.deps.restart(proc);
    }
  }

  /** Processes that exited while waiting or holding: nothing to grant or restart. */
  private forgetDead(): void {
    for (const proc of this.waiting.keys()) if (!proc.alive) this.waiting.delete(proc);
    for (const proc of this.granted.keys()) if (!proc.alive) this.granted.delete(proc);
  }
}
