/**
 * Warm agent processes: bare agent processes started ahead of need, with every module loaded,
 * that have said `runtime.ready` and wait for their `runtime.assign` (the same start-up protocol
 * as a cold start, minus the wait). The pool refills in the background; a pool process that keeps
 * dying turns the pool off instead of looping.
 */
import type { RootLogger } from '../../shared/logger.ts';
import type { ChildLauncher, LaunchedChild, LaunchOptions } from './child-launcher.ts';

export interface WarmPoolOptions {
  size: number;
  logger: RootLogger;
  launcher: ChildLauncher;
  /** Command line of a bare agent process. */
  launchOptions(): LaunchOptions;
}

/** Pool processes that die before assignment this many times in a row disable the pool. */
const MAX_CONSECUTIVE_FAILURES = 3;
const REFILL_DELAY_MS = 50;

interface PoolEntry {
  child: LaunchedChild;
  stopListening: () => void;
}

export class WarmPool {
  private readonly ready: PoolEntry[] = [];
  private readonly starting = new Set<PoolEntry>();
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
  take(): LaunchedChild | undefined {
    const entry = this.ready.shift();
    if (!entry) return undefined;
    entry.stopListening();
    this.scheduleRefill();
    return entry.child;
  }

  /** Replaces every idle pool process (e.g. after the environment changed on reload). */
  recycle(): void {
    this.killIdle();
    this.scheduleRefill();
  }

  stop(): void {
    this.stopped = true;
    if (this.refillTimer) clearTimeout(this.refillTimer);
    this.killIdle();
  }

  /** Pool processes not yet assigned (for `ps`-style accounting and tests). */
  pids(): number[] {
    return [...this.ready, ...this.starting].map((e) => e.child.handle.pid);
  }

  private killIdle(): void {
    for (const entry of [...this.ready, ...this.starting]) entry.child.handle.kill('SIGKILL');
    this.ready.length = 0;
    this.starting.clear();
  }

  private startOne(): void {
    const child = this.options.launcher.launch(this.options.launchOptions());
    const entry: PoolEntry = {
      child,
      stopListening: child.transport.onMessage((message) => {
        if (message.type !== 'event' || message.payload.type !== 'runtime.ready' || !this.starting.delete(entry)) return;
        this.failures = 0;
        this.ready.push(entry);
      }),
    };
    this.starting.add(entry);
    void child.handle.exited.then((exit) => {
      const index = this.ready.indexOf(entry);
      if (index >= 0) this.ready.splice(index, 1);
      const wasIdle = this.starting.delete(entry) || index >= 0;
      if (!wasIdle || this.stopped) return;
      this.failures += 1;
      this.options.logger.warn({ childPid: child.handle.pid, ...exit, failures: this.failures }, 'warm pool process exited before assignment');
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
