/** A limiter clock that moves only when a test says so; its timers run in order as it passes them. */
import type { LimiterClock } from '../../../orchestrator/usage/model-rate-limiter.ts';

export class ManualClock implements LimiterClock {
  time = 0;
  private timers: Array<{ at: number; run: () => void }> = [];
  now(): number {
    return this.time;
  }
  schedule(run: () => void, ms: number): () => void {
    const timer = { at: this.time + ms, run };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }
  /** Moves time forward, running what comes due, in order. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = next.at;
      next.run();
      await settle();
    }
    this.time = until;
    await settle();
  }
}

/** Lets every pending promise chain run (a timer's callback may resolve a chain several steps long). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
