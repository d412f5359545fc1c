/**
 * How an outcome reaches the node that accepted its event, however long that node is away
 * (kept-outcomes.ts). An outcome goes over core NATS as every reply does; when the first attempt
 * does not get through, it is also kept for that node's disk, and released once a later attempt
 * does. The accepting node takes what is kept for its disk when it starts and when it reconnects;
 * what is kept for a disk no member record names any more goes (sweep).
 */
import type { RootLogger } from '../../shared/logger.ts';
import { RecentMap } from '../../shared/recent-map.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { SETTLED_EVENT_KEY } from '../routing/foreign-outcomes.ts';
import type { KeptOutcomes } from './kept-outcomes.ts';
import type { Membership } from './membership.ts';

/** Origins remembered (the oldest go first): far more than events in flight at once. */
const MAX_ORIGINS = 10_000;

export interface OutcomeDeliveryDeps {
  kept: KeptOutcomes;
  membership: Pick<Membership, 'diskOf' | 'disks' | 'recordedDisks'>;
  /** This node's disk (node-disk.ts). */
  disk: string;
  logger: RootLogger;
  /** One attempt after another until `until`; true once the node has it; `missed` on the first miss. */
  send(node: string, event: AgentEvent, until: number, missed: () => void): Promise<boolean>;
  /** Records an outcome kept for this node (as one received over core NATS). */
  take(outcome: AgentEvent): void;
}

export class OutcomeDelivery {
  /** The disk of each node that accepted an event run here, noted while its record is surely there. */
  private readonly origins = new RecentMap<string, string>(MAX_ORIGINS);
  private seenDisks: Set<string> | undefined;

  constructor(private readonly deps: OutcomeDeliveryDeps) {}

  /** An event pulled here that `node` accepted: its disk is noted now (a node back under another id forgets its record). */
  noteOrigin(node: string): void {
    const disk = this.deps.membership.diskOf(node);
    if (disk === undefined || this.origins.get(node) === disk) return;
    this.origins.set(node, disk);
  }

  /** A reply or notice for `node`; one that settles an event `node` accepted is kept for it once an attempt misses. */
  async send(node: string, event: AgentEvent, until: number): Promise<void> {
    await this.deliver(node, event, (missed) => this.deps.send(node, event, until, missed));
  }

  /**
   * `outcome` (it names the event it settles) to `node` by `attempt`, which calls `missed` on its
   * first miss: it is kept for `node` from then on until an attempt gets through. True once through.
   */
  async deliver(node: string, outcome: AgentEvent, attempt: (missed: () => void) => Promise<boolean>): Promise<boolean> {
    const eventId = outcome.metadata?.[SETTLED_EVENT_KEY];
    const named = typeof eventId === 'string' ? (this.deps.membership.diskOf(node) ?? this.origins.get(node)) : undefined;
    // Kept only for a disk a member record names (the node, or its successor on that disk): the sweep drops the rest.
    const disk = named !== undefined && this.deps.membership.disks().has(named) ? named : undefined;
    let keeping: Promise<number | undefined> | undefined;
    const missed = () => {
      if (disk === undefined || typeof eventId !== 'string') return;
      keeping ??= this.deps.kept.keep(disk, eventId, outcome).catch((error: unknown) => {
        this.deps.logger.warn({ node, eventId, err: error }, 'could not keep an outcome for the node that accepted its event; it has it only if a later attempt gets through');
        return undefined;
      });
    };
    const delivered = await attempt(missed);
    if (!delivered || keeping === undefined) return delivered;
    const seq = await keeping;
    if (seq === undefined) return delivered;
    // The node took it after all: nothing waits for it in the stream (it may have collected it itself).
    await this.deps.kept.release(seq).catch((error: unknown) => {
      this.deps.logger.warn({ node, eventId, err: error }, 'could not remove a kept outcome its node has; that node takes it again at its next start, which changes nothing');
    });
    return delivered;
  }

  /** What is kept for this node's disk, into its ledger: at start and after each reconnect. */
  async collect(): Promise<void> {
    try {
      const taken = await this.deps.kept.collect(this.deps.disk, (outcome) => this.deps.take(outcome));
      if (taken > 0) this.deps.logger.info({ taken }, 'recorded the outcomes of events this node accepted that ended while it was away');
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not read the outcomes kept for this node; they are read at the next reconnect or start');
    }
  }

  /** Each tick: once a disk is no longer named by any member record, what is kept for it goes (read afresh first). */
  async sweep(): Promise<void> {
    const seen = this.deps.membership.disks();
    const previous = this.seenDisks;
    this.seenDisks = seen;
    if (previous !== undefined && [...previous].every((disk) => seen.has(disk))) return;
    try {
      await this.deps.kept.sweep(await this.deps.membership.recordedDisks(await this.deps.kept.memberKeys()));
    } catch (error) {
      // Seen again as gone at no later tick: try at the next one.
      this.seenDisks = previous;
      this.deps.logger.warn({ err: error }, 'could not drop the outcomes kept for forgotten nodes; retrying');
    }
  }
}
