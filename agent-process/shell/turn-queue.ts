/**
 * The AgentProcess FIFO (SPEC.md §2.1): events are processed strictly one at a time, in arrival
 * order. Draining stops dequeuing; `idle()` resolves once the running turn (if any) has finished.
 */
import type { AgentEvent } from '../../shared/types/events.ts';

export class TurnQueue {
  private readonly queue: AgentEvent[] = [];
  private readonly seen = new Set<string>();
  private running: Promise<void> | undefined;
  private draining = false;

  constructor(private readonly process: (event: AgentEvent) => Promise<void>) {}

  /** Ignores an event id already queued or running (a redelivery racing the original). */
  push(event: AgentEvent): void {
    if (this.seen.has(event.id)) return;
    this.seen.add(event.id);
    this.queue.push(event);
    this.pump();
  }

  /** Stops taking new work; resolves when the current turn is done. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.running;
  }

  get length(): number {
    return this.queue.length;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  private pump(): void {
    if (this.running || this.draining) return;
    const next = this.queue.shift();
    if (!next) return;
    this.running = this.process(next).finally(() => {
      this.seen.delete(next.id);
      this.running = undefined;
      this.pump();
    });
  }
}
