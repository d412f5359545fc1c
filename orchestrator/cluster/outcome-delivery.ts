/**
 * How an outcome reaches the node that accepted its event, however long that node is away
 * (kept-outcomes.ts). An outcome goes over core NATS as every reply does; when the first attempt
 * does not get through, it is also kept for that node's disk, and released once a later attempt
 * does. The accepting node takes what is kept for its disk when it starts and when it reconnects;
 * what is kept for a disk no member record names any more goes (sweep).
 * The owner acks such an event's inbox message only once its outcome is handed off, taken by the
 * accepting node or kept for it (handedOff). Acked before, an owner that died in between (the
 * accepting node slow to answer or away, the keep not stored yet) left the outcome nowhere and the
 * accepting node's record `running` for good. Unacked, the message goes to the next owner, whose
 * run finds the turn finished and tells its outcome again.
 */
import type { RootLogger } from '../../shared/logger.ts';
import { RecentMap } from '../../shared/recent-map.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { SETTLED_EVENT_KEY } from '../routing/foreign-outcomes.ts';
import type { KeptOutcomes } from './kept-outcomes.ts';
import type { Membership } from './membership.ts';

/** Origins remembered (the oldest go first): far more than events in flight at once. */
const MAX_ORIGINS = 10_000;
/** Events whose outcome's hand-off is awaited, at most (the oldest go first: their acks wait no more). */
const MAX_AWAITED = 10_000;

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
  /** Events run here that another node accepted from outside, by id: the hand-off of their outcome to it. */
  private readonly awaited = new RecentMap<string, HandOff>(MAX_AWAITED);
  private seenDisks: Set<string> | undefined;

  constructor(private readonly deps: OutcomeDeliveryDeps) {}

  /** An event pulled here that `node` accepted: its disk is noted now (a node back under another id forgets its record). */
  noteOrigin(node: string): void {
    const disk = this.deps.membership.diskOf(node);
    if (disk === undefined || this.origins.get(node) === disk) return;
    this.origins.set(node, disk);
  }

  /** `eventId`, accepted from outside by another node, runs here: its outcome is to be handed off to that node. */
  expect(eventId: string): void {
    // A redelivery after an earlier run's hand-off hands its own outcome off again.
    if (this.awaited.get(eventId)?.pending !== true) this.awaited.set(eventId, handOff());
  }

  /**
   * Resolves once the outcome of an expected event reached its accepting node or is kept for it, at
   * once for any other event: its inbox message may be acked then.
   */
  handedOff(eventId: string): Promise<void> {
    return this.awaited.get(eventId)?.done ?? Promise.resolve();
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
    const handedOff = () => {
      if (typeof eventId === 'string') this.awaited.get(eventId)?.resolve();
    };
    const missed = () => {
      // Nowhere to keep it: no later attempt is worth holding the event's ack for.
      if (disk === undefined || typeof eventId !== 'string') return handedOff();
      keeping ??= this.deps.kept.keep(disk, eventId, outcome).catch((error: unknown) => {
        this.deps.logger.warn({ node, eventId, err: error }, 'could not keep an outcome for the node that accepted its event; it has it only if a later attempt gets through');
        return undefined;
      });
      void keeping.then(handedOff);
    };
    const delivered = await attempt(missed);
    // Through, or given up after the last attempt.
    handedOff();
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

/** The way of an outcome to the node that accepted its event. */
interface HandOff {
  readonly done: Promise<void>;
  /** Not handed off yet. */
  readonly pending: boolean;
  resolve(): void;
}

function handOff(): HandOff {
  let settle = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const state = {
    done,
    pending: true,
    resolve() {
      state.pending = false;
      settle();
    },
  };
  return state;
}
