/**
 * Warm agent processes: started ahead of need with every module loaded (about 140 ms of an agent's
 * ~150 ms start-up), then assigned to an instance with one IPC message. The pool refills in the
 * background; a pool process that keeps dying turns the pool off instead of looping.
 */
import { CONTROL } from '../../shared/ipc/control-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { type SpawnChildOptions, SpawnedChild } from './spawned-child.ts';

export interface WarmPoolOptions {
  size: number;
  logger: RootLogger;
  /** Command and environment of a pool process (the agent entry with `--pool`). */
  spawnOptions(): SpawnChildOptions;
}

/** Pool processes that die before assignment this many times in a row disable the pool. */
const MAX_CONSECUTIVE_FAILURES = 3;
const REFILL_DELAY_MS = 50;

export class WarmPool {
  private readonly ready: SpawnedChild[] = [];
  private readonly starting = new Set<SpawnedChild>();
  private failures = 0;
  private stopped = false;
  private refillTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: WarmPoolOptions) {}

  get enabled(): boolean {
    return this.options.size > 0 && !this.stopped && this.failures < MAX_CONSECUTIVE_FAILURES;
  }

  fill(): void {
    while (this.enabled && this.ready.length + this.starting.size < this.options.size) this.startOne();
  }

  /** A ready process, handed over to a new owner; the pool refills behind it. */
  take(): SpawnedChild | undefined {
    const child = this.ready.shift();
    if (child) this.scheduleRefill();
    return child;
  }

  /** Replaces every idle pool process (e.g. after the environment changed on reload). */
  recycle(): void {
    for (const child of [...this.ready, ...this.starting]) child.kill('SIGKILL');
    this.ready.length = 0;
    this.starting.clear();
    this.scheduleRefill();
  }

  stop(): void {
    this.stopped = true;
    if (this.refillTimer) clearTimeout(this.refillTimer);
    for (const child of [...this.ready, ...this.starting]) child.kill('SIGKILL');
    this.ready.length = 0;
    this.starting.clear();
  }

  /** Pool processes not yet assigned (for `ps`-style accounting and tests). */
  pids(): number[] {
    return [...this.ready, ...this.starting].map((c) => c.pid);
  }

  private startOne(): void {
    const child = new SpawnedChild(this.options.spawnOptions());
    this.starting.add(child);
    child.onInvalid((problems) => this.options.logger.warn({ childPid: child.pid, problems }, 'dropped malformed IPC message from a pool process'));
    child.onMessage((message) => {
      if (message.type !== 'event' || message.payload.type !== CONTROL.poolReady || !this.starting.delete(child)) return;
      this.failures = 0;
      this.ready.push(child);
    });
    child.onExit((exit) => {
      const wasIdle = this.starting.delete(child) || this.ready.includes(child);
      if (!wasIdle) return;
      const index = this.ready.indexOf(child);
      if (index >= 0) this.ready.splice(index, 1);
      if (this.stopped) return;
      this.failures += 1;
      this.options.logger.warn({ childPid: child.pid, ...exit, failures: this.failures }, 'warm pool process exited before assignment');
      if (!this.enabled) this.options.logger.error('warm pool disabled after repeated failures; agents start cold');
      else this.scheduleRefill();
    });
  }

  private scheduleRefill(): void {
    if (!this.enabled || this.refillTimer) return;
    // A short delay keeps the refill from competing with the start-up that just took a process.
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.fill();
    }, REFILL_DELAY_MS);
  }
}
