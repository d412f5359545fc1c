/**
 * Replies this agent received before their callee's turn was on disk (marked `unsynced`;
 * orchestrator/routing/unsynced-replies.ts). Nothing that rests on them leaves this process before
 * `runtime.reply.synced` came for each: not the turn's own reply and ack, not a tool handler's
 * effect, not a message to another agent. The notice usually comes before anything asks: the callee
 * syncs while this agent runs its next step.
 */

/** The orchestrator answers on the callee's ack or syncs the callee's records itself when it exits: overdue is a defect. */
const OVERDUE_MS = 30_000;

export class UnsyncedDependencies {
  private readonly waiting = new Map<string, ReturnType<typeof setTimeout>>();
  private waiters: Array<() => void> = [];

  constructor(
    /** A notice that did not come: the wait ends (logged), it does not hang the instance. */
    private readonly onOverdue: (correlationId: string) => void,
    private readonly overdueMs = OVERDUE_MS,
  ) {}

  /** A reply to `correlationId` came marked `unsynced`. */
  add(correlationId: string): void {
    if (this.waiting.has(correlationId)) return;
    const timer = setTimeout(() => {
      this.onOverdue(correlationId);
      this.synced(correlationId);
    }, this.overdueMs);
    timer.unref?.();
    this.waiting.set(correlationId, timer);
  }

  /** `runtime.reply.synced` for `correlationId`. */
  synced(correlationId: string): void {
    const timer = this.waiting.get(correlationId);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.waiting.delete(correlationId);
    if (this.waiting.size > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  get count(): number {
    return this.waiting.size;
  }

  /** Resolves once no received reply waits for its notice. */
  settled(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
