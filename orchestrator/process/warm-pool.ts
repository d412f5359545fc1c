/**
 * Warm agent processes: bare agent processes started ahead of need, with every module loaded,
 * that have said `runtime.ready` and wait for their `runtime.assign` (the same start-up protocol
 * as a cold start, minus the wait). The pool refills in the background; a pool process that keeps
 * dying turns the pool off instead of looping.
 *
 * Its size adapts to demand: `size` spares at least, more while new instances arrive faster than
 * one spare can boot (enough to cover the arrivals of two boot times), bounded by `room()` (what
 * memory allows) and MAX_SPARES; extra spares are stopped once the demand has passed.
 *
 * A spare is primed (`runtime.prime`, sent as it is launched) for the agent new instances were last
 * taken for (at first the entry agent): before it says ready it rehearses a turn of that agent's
 * plan (agent-priming.ts). A take for an agent prefers a spare primed for it; any ready spare
 * still serves any agent.
 */
import { availableParallelism } from 'node:os';
import { AGENT_SPARE_ENV, SPARE_PRIMED_AT_LAUNCH } from '../../shared/ipc/agent-preload.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type ControlPayloads, controlEvent, parseControl } from '../../shared/ipc/control-protocol.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { DemandRate } from './demand-rate.ts';
import type { ChildLauncher, LaunchedChild, LaunchOptions } from './child-launcher.ts';

export interface WarmPoolOptions {
  /** Spares kept at least (0 turns the pool off). */
  size: number;
  logger: RootLogger;
  launcher: ChildLauncher;
  /** Command line of a bare agent process. */
  launchOptions(): LaunchOptions;
  /** How many spares memory allows now (the live-process budget left); unbounded when absent. */
  room?(): number;
  /** Milliseconds (tests pass a fake clock). */
  now?(): number;
  /** The plan a spare rehearses to become `agent` sooner (`runtime.prime`); undefined: no priming. */
  primingPlan?(agent: string): ControlPayloads['runtime.prime'] | undefined;
  /** The agent spares are primed for until a take names one (the swarm's entry agent). */
  likelyAgent?(): string;
  /** Spares booting at once at most (default DEFAULT_MAX_BOOTING). */
  maxBooting?: number;
}

/** Pool processes that die before assignment this many times in a row disable the pool. */
const MAX_CONSECUTIVE_FAILURES = 3;
const REFILL_DELAY_MS = 50;
/**
 * The refill after a take that emptied the pool. Launching a process blocks this loop (Bun.spawn:
 * 0.3 ms idle, up to several ms under load); measured at 10 new instances/s, launching at once
 * delayed the taken spare's start-up messages, 10 ms later (its engine is built by then) did not:
 * first-reply median 13-16 -> 9-12 ms; 25 ms made the next spare late.
 */
const EMPTY_POOL_REFILL_DELAY_MS = 10;
/**
 * Spares booting at once, by default: a boot is CPU-bound (~100 ms of CPU), so more at once than the
 * machine has cores only slow each other and the instances they are for, and in a burst past what
 * the machine can start they end up as spares nobody takes.
 */
export const DEFAULT_MAX_BOOTING = Math.max(1, availableParallelism());
/** Never more spares than this, whatever the rate: each is a whole Bun process. */
export const MAX_SPARES = 8;
/** Demand is the takes (hits and misses) of this recent window. */
export const DEMAND_WINDOW_MS = 2_000;
/** Boot time assumed until one spare has been measured. */
const ASSUMED_BOOT_MS = 300;
/** Spares cover the arrivals of this many boot times. */
const BOOT_COVER = 2;

/** A pool process handed to a new owner: ready (assign it now) or still booting (assign it on its `runtime.ready`). */
export interface WarmChild {
  child: LaunchedChild;
  ready: boolean;
  /** The plans it rehearsed and said it was primed with (`runtime.primed`): it need not be sent them again. */
  primed?: ControlPayloads['runtime.prime'];
}

interface PoolEntry {
  child: LaunchedChild;
  launchedAt: number;
  stopListening: () => void;
  /** The plans it was sent to rehearse (`runtime.prime`) … */
  priming?: ControlPayloads['runtime.prime'];
  /** … once it said it rehearsed them (`runtime.primed`). */
  primed?: ControlPayloads['runtime.prime'];
}

export class WarmPool {
  private readonly ready: PoolEntry[] = [];
  private readonly starting = new Set<PoolEntry>();
  private readonly demand: DemandRate;
  private readonly now: () => number;
  private bootMs = ASSUMED_BOOT_MS;
  private failures = 0;
  private stopped = false;
  private refillTimer: ReturnType<typeof setTimeout> | undefined;
  private refillDueAt = 0;
  private decayTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly spareReadyWaiters: Array<() => void> = [];
  /** The agent of the latest take that named one. */
  private latestAgent: string | undefined;

  constructor(private readonly options: WarmPoolOptions) {
    this.now = options.now ?? (() => performance.now());
    this.demand = new DemandRate(DEMAND_WINDOW_MS, this.now);
  }

  get enabled(): boolean {
    return this.options.size > 0 && !this.stopped && this.failures < MAX_CONSECUTIVE_FAILURES;
  }

  /** Spares wanted now: the minimum, or what the recent rate of new instances needs, within memory. */
  get target(): number {
    if (!this.enabled) return 0;
    const needed = Math.ceil(this.demand.perSecond() * (this.bootMs / 1000) * BOOT_COVER);
    const room = Math.max(this.options.size, this.options.room?.() ?? MAX_SPARES);
    return Math.min(Math.max(this.options.size, needed), room, MAX_SPARES);
  }

  fill(): void {
    const target = this.target;
    while (this.enabled && this.ready.length + this.starting.size < target && this.starting.size < (this.options.maxBooting ?? DEFAULT_MAX_BOOTING)) this.startOne();
    // Demand has passed: stop the spares beyond the target (ready ones only; starting ones finish).
    while (this.ready.length > 0 && this.ready.length + this.starting.size > target) this.ready.pop()?.child.handle.kill('SIGKILL');
    if (target > this.options.size) this.scheduleDecay();
  }

  /**
   * Resolves once a spare is ready (or the pool is off, or gave up): a daemon that says it is ready
   * then serves its first new instance from a spare instead of racing a still-booting one.
   */
  spareReady(): Promise<void> {
    if (this.ready.length > 0 || !this.enabled) return Promise.resolve();
    return new Promise((resolve) => this.spareReadyWaiters.push(resolve));
  }

  /**
   * A process handed over to a new owner (an instance of `agent`); the pool refills behind it.
   * Every call is demand. A ready one primed for `agent` if there is one, else the oldest ready
   * one; else a spare past half its boot, which (its rehearsal included) says ready sooner than a
   * cold start would: at the start of a burst, before the pool has grown.
   */
  take(agent?: string): WarmChild | undefined {
    this.demand.record();
    if (agent !== undefined) this.latestAgent = agent;
    const primed = this.ready.findIndex((entry) => agent !== undefined && entry.primed?.agentPlan.name === agent);
    const [ready] = this.ready.splice(Math.max(primed, 0), 1);
    // The last ready spare is gone: the next one boots soon. Waiting REFILL_DELAY_MS would make it
    // late for new instances that come back to back (at 10/s a spare boots in about the gap).
    this.scheduleRefill(this.ready.length === 0 ? EMPTY_POOL_REFILL_DELAY_MS : REFILL_DELAY_MS);
    if (ready) {
      ready.stopListening();
      return { child: ready.child, ready: true, ...(ready.primed ? { primed: ready.primed } : {}) };
    }
    const now = this.now();
    const booting = [...this.starting].filter((e) => now - e.launchedAt >= this.bootMs / 2).sort((a, b) => a.launchedAt - b.launchedAt)[0];
    if (!booting) return undefined;
    this.starting.delete(booting);
    booting.stopListening();
    return { child: booting.child, ready: false };
  }

  /** Replaces every idle pool process (e.g. after the environment changed on reload). */
  recycle(): void {
    this.killIdle();
    this.scheduleRefill();
  }

  stop(): void {
    this.stopped = true;
    if (this.refillTimer) clearTimeout(this.refillTimer);
    if (this.decayTimer) clearTimeout(this.decayTimer);
    this.killIdle();
    this.releaseSpareReadyWaiters();
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
    const launch = this.options.launchOptions();
    const plan = this.primingPlan();
    // A spare has time before anyone waits for it: it rehearses a turn (agent-rehearsal.ts), of
    // the plan sent below when there is one (it waits for it), else of the preload's generic one.
    const child = this.options.launcher.launch({ ...launch, env: { ...launch.env, [AGENT_SPARE_ENV]: plan ? SPARE_PRIMED_AT_LAUNCH : '1' } });
    const entry: PoolEntry = {
      child,
      launchedAt: this.now(),
      stopListening: child.transport.onMessage((message) => {
        if (message.type !== 'event') return;
        if (message.payload.type === 'runtime.primed') {
          const parsed = parseControl(message.payload);
          if (parsed.ok && parsed.message.type === 'runtime.primed' && parsed.message.payload.ok && parsed.message.payload.agent === entry.priming?.agentPlan.name) {
            entry.primed = entry.priming;
            this.options.logger.debug({ childPid: child.handle.pid, agent: parsed.message.payload.agent }, 'warm spare primed: it will be assigned without the plans it holds');
          }
          return;
        }
        if (message.payload.type !== 'runtime.ready' || !this.starting.delete(entry)) return;
        this.failures = 0;
        this.bootMs = this.now() - entry.launchedAt;
        this.ready.push(entry);
        this.releaseSpareReadyWaiters();
        // A boot slot is free (maxBooting): the next spare the rate wants boots now.
        if (this.ready.length + this.starting.size < this.target) this.scheduleRefill(EMPTY_POOL_REFILL_DELAY_MS);
      }),
    };
    // Sent as it boots (IPC holds it until the child listens): the spare rehearses this plan
    // instead of the preload's generic one, once instead of twice, and says ready primed.
    if (plan) {
      entry.priming = plan;
      child.transport.send({ type: 'event', from: ORCHESTRATOR, to: 'pool', payload: controlEvent('runtime.prime', ORCHESTRATOR_SOURCE, plan) });
    }
    this.starting.add(entry);
    void child.handle.exited.then((exit) => {
      const index = this.ready.indexOf(entry);
      if (index >= 0) this.ready.splice(index, 1);
      const wasIdle = this.starting.delete(entry) || index >= 0;
      if (!wasIdle || this.stopped) return;
      this.failures += 1;
      this.options.logger.warn({ childPid: child.handle.pid, ...exit, failures: this.failures }, 'warm pool process exited before assignment');
      if (!this.enabled) {
        this.options.logger.error('warm pool disabled after repeated failures; agents start cold');
        this.releaseSpareReadyWaiters();
      } else this.scheduleRefill();
    });
  }

  private releaseSpareReadyWaiters(): void {
    for (const resolve of this.spareReadyWaiters.splice(0)) resolve();
  }

  /** The plan of the agent new instances are most likely for, which a new spare rehearses. */
  private primingPlan(): ControlPayloads['runtime.prime'] | undefined {
    const agent = this.latestAgent ?? this.options.likelyAgent?.();
    return agent === undefined ? undefined : this.options.primingPlan?.(agent);
  }

  private scheduleRefill(delayMs = REFILL_DELAY_MS): void {
    if (!this.enabled) return;
    // A short delay keeps the refill from competing with the start-up that just took a process.
    const dueAt = performance.now() + delayMs;
    if (this.refillTimer) {
      // A refill already due sooner stands (later takes never postpone it).
      if (this.refillDueAt <= dueAt) return;
      clearTimeout(this.refillTimer);
    }
    this.refillDueAt = dueAt;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.fill();
    }, delayMs);
  }

  /** Re-evaluates the size once the current demand has left the window. */
  private scheduleDecay(): void {
    if (this.decayTimer) return;
    this.decayTimer = setTimeout(() => {
      this.decayTimer = undefined;
      this.fill();
    }, DEMAND_WINDOW_MS);
    this.decayTimer.unref?.();
  }
}
