/**
 * Model.spec.rateLimit: one limiter per Model, shared by every agent process that uses it. Calls
 * are admitted in arrival order when (1) the request bucket holds a whole request, (2) the token
 * bucket is not in debt (calls are charged their real tokens when they end), (3) fewer than
 * maxConcurrent calls are in flight, and (4) no provider 429 paused the Model. Each bucket holds one
 * second's share of its per-minute rate (at least one), so there is no minute-long burst:
 * `requestsPerMinute: 6` admits about one call every 10 s.
 */
import type { ModelRateLimit } from '../../shared/types/resources.ts';

const MS_PER_MINUTE = 60_000;

/** Time as the limiter sees it (tests drive a manual one). */
export interface LimiterClock {
  now(): number;
  /** Runs `run` after `ms`; returns how to cancel it. */
  schedule(run: () => void, ms: number): () => void;
}

export const systemClock: LimiterClock = {
  now: () => Date.now(),
  schedule(run, ms) {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

class Bucket {
  private level: number;
  private last: number;
  readonly capacity: number;
  private readonly perMs: number;

  constructor(perMinute: number, now: number) {
    this.perMs = perMinute / MS_PER_MINUTE;
    this.capacity = Math.max(1, perMinute / 60);
    this.level = this.capacity;
    this.last = now;
  }

  current(now: number): number {
    this.level = Math.min(this.capacity, this.level + (now - this.last) * this.perMs);
    this.last = now;
    return this.level;
  }

  take(amount: number, now: number): void {
    this.level = this.current(now) - amount;
  }

  /** Milliseconds until the level reaches `needed`. */
  waitFor(needed: number, now: number): number {
    const missing = needed - this.current(now);
    return missing <= 0 ? 0 : Math.ceil(missing / this.perMs);
  }
}

export class ModelRateLimiter {
  private readonly requests: Bucket | undefined;
  private readonly tokens: Bucket | undefined;
  private inFlight = 0;
  private pausedUntil = 0;
  private readonly waiting: Array<() => void> = [];
  private cancelTimer: (() => void) | undefined;

  constructor(
    readonly limits: ModelRateLimit,
    private readonly clock: LimiterClock = systemClock,
  ) {
    if (limits.requestsPerMinute !== undefined) this.requests = new Bucket(limits.requestsPerMinute, clock.now());
    if (limits.tokensPerMinute !== undefined) this.tokens = new Bucket(limits.tokensPerMinute, clock.now());
  }

  private now(): number {
    return this.clock.now();
  }

  /** Resolves when the call may go; the caller must `release` it once. */
  acquire(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
  }

  /** The call ended, having used `tokens` (input + output). */
  release(tokens: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.tokens?.take(tokens, this.now());
    this.pump();
  }

  /** A provider 429 asked to wait: nobody using this Model calls before then. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
    this.pump();
  }

  /** Milliseconds until the Model may be called again after a 429 (0: not paused). */
  pausedFor(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  private pump(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    while (this.waiting.length > 0) {
      const now = this.now();
      if (this.limits.maxConcurrent !== undefined && this.inFlight >= this.limits.maxConcurrent) return; // a release pumps again
      const wait = Math.max(this.pausedUntil - now, this.requests?.waitFor(1, now) ?? 0, this.tokens ? this.tokens.waitFor(Number.MIN_VALUE, now) : 0);
      if (wait > 0) {
        this.cancelTimer = this.clock.schedule(() => this.pump(), wait);
        return;
      }
      this.requests?.take(1, now);
      this.inFlight += 1;
      this.waiting.shift()?.();
    }
  }
}
