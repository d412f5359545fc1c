/**
 * An instance's events go to it in the order they were published, also across a change of owner.
 * A new owner can be handed an instance's newer event before an older one that a previous owner had
 * taken and not acked: JetStream sends the older one again only when its ack wait runs out (the
 * previous owner kept it alive with in-progress acks until it saw it had lost its lease, or had it
 * buffered when it stopped pulling), while the newer one comes at once. Started first, the newer
 * turn would find the older turn unfinished and settle its tool calls as interrupted, and the older
 * event would never be answered. So the first event of an instance on this node waits while older
 * messages of its subject are still in the stream; when they come they go first, in stream order.
 */
import type { RootLogger } from '../../shared/logger.ts';

export interface OrderedMessage {
  /** Stream sequence. */
  seq: number;
  /** The instance's inbox subject. */
  subject: string;
  /** Hands the event to the instance (never throws: it deals with its own failure). */
  deliver(): Promise<void>;
}

export interface InstanceOrderDeps {
  /** Sequences of messages on `subject` still in the stream, below `below`, in order. */
  olderInStream(subject: string, below: number): Promise<number[]>;
  /** How often a held instance looks again whether what it waits for is still in the stream. */
  recheckMs: number;
  logger: RootLogger;
}

interface Hold {
  /** Older sequences not received yet. */
  waiting: Set<number>;
  held: Map<number, OrderedMessage>;
  timer: ReturnType<typeof setInterval>;
  /** The held messages being handed on, in order: later arrivals wait for it. */
  releasing?: Promise<void>;
}

export class InstanceOrder {
  /** Subjects whose older messages this node has seen through: their events go straight on. */
  private readonly inOrder = new Set<string>();
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly deps: InstanceOrderDeps) {}

  /** Each message as the partition's pump receives it (one at a time per partition). */
  async accept(message: OrderedMessage): Promise<void> {
    const hold = this.holds.get(message.subject);
    if (hold?.releasing) {
      // A recheck released the hold while the pump went on: this one goes after the held ones.
      await hold.releasing;
      return this.accept(message);
    }
    if (hold) {
      hold.waiting.delete(message.seq);
      hold.held.set(message.seq, message);
      return this.releaseIfComplete(message.subject, hold);
    }
    if (this.inOrder.has(message.subject)) return message.deliver();
    const older = await this.deps.olderInStream(message.subject, message.seq);
    if (older.length === 0) {
      this.inOrder.add(message.subject);
      return message.deliver();
    }
    const timer = setInterval(() => void this.recheck(message.subject), this.deps.recheckMs);
    timer.unref?.();
    this.holds.set(message.subject, { waiting: new Set(older), held: new Map([[message.seq, message]]), timer });
    this.deps.logger.info({ subject: message.subject, seq: message.seq, waitingFor: older }, 'an instance’s event waits for its older ones, which a previous owner had taken');
  }

  /** Forgets the subjects under `prefix` (a partition no longer pulled here): held messages are dropped with the rest in flight. */
  forget(prefix: string): void {
    for (const [subject, hold] of this.holds) {
      if (!subject.startsWith(prefix)) continue;
      clearInterval(hold.timer);
      this.holds.delete(subject);
    }
    for (const subject of this.inOrder) if (subject.startsWith(prefix)) this.inOrder.delete(subject);
  }

  /** An older message acked or removed elsewhere will not come: it is waited for no more. */
  private async recheck(subject: string): Promise<void> {
    const hold = this.holds.get(subject);
    if (!hold) return;
    let still: number[];
    try {
      still = await this.deps.olderInStream(subject, Math.max(...hold.held.keys()));
    } catch (error) {
      this.deps.logger.warn({ subject, err: error }, 'could not look at an instance’s older events; looking again later');
      return;
    }
    if (this.holds.get(subject) !== hold) return;
    const stored = new Set(still);
    for (const seq of hold.waiting) if (!stored.has(seq)) hold.waiting.delete(seq);
    await this.releaseIfComplete(subject, hold);
  }

  private async releaseIfComplete(subject: string, hold: Hold): Promise<void> {
    if (hold.waiting.size > 0 || hold.releasing) return;
    clearInterval(hold.timer);
    hold.releasing = (async () => {
      for (const seq of [...hold.held.keys()].sort((a, b) => a - b)) await hold.held.get(seq)?.deliver();
    })();
    await hold.releasing;
    if (this.holds.get(subject) !== hold) return; // forgotten meanwhile: the partition left this node
    this.holds.delete(subject);
    this.inOrder.add(subject);
  }
}
