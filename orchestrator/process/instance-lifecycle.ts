/**
 * The instance lifecycle (SPEC.md §1.2 `Swarm.spec.policy.lifecycle`, issue 12): an instance idle
 * for `ttlSeconds` is passivated (its process drains and stops, its row stays, its next event
 * starts it again), and one idle for `gcGraceSeconds` loses its state. Idle means: ready, status
 * idle, nothing in its durable inbox. An instance whose turn has only waited for a human approval
 * or another agent's reply for `ttlSeconds` is passivated too, and the answer wakes it
 * (Supervisor.passivate with waitingSince). Live-process admission (maxLiveProcesses) is the supervisor's; this sweeps
 * on a clock.
 */
import { rmSync, statSync } from 'node:fs';
import type { RootLogger } from '../../shared/logger.ts';
import type { LifecyclePlan } from '../../shared/types/bundle.ts';
import { listInstanceDirs } from '../cli/instance-dirs.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { Metrics } from '../http/metrics.ts';
import type { ManagedProcess } from './managed-process.ts';
import type { Supervisor } from './supervisor.ts';

export interface InstanceLifecycleOptions {
  lifecycle(): LifecyclePlan;
  gracePeriodMs(): number;
  stateRoot: string;
  workspaceId: string;
  supervisor: Supervisor;
  delivery: Delivery;
  metrics: Metrics;
  logger: RootLogger;
  /** Since when (ms since the epoch) its turn only waits for an approval or a reply; undefined when it does not. */
  waitingSince?(proc: ManagedProcess): number | undefined;
}

/** How often idle instances are looked for: a quarter of the TTL, within these bounds. */
const MIN_SWEEP_MS = 250;
const MAX_SWEEP_MS = 5_000;
/** State GC reads directories: at most this often. */
const MAX_GC_INTERVAL_MS = 60_000;

export class InstanceLifecycle {
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastGcAt = 0;

  constructor(private readonly options: InstanceLifecycleOptions) {}

  start(): void {
    const { ttlMs, gcGraceMs } = this.options.lifecycle();
    const period = Math.min(...[ttlMs, gcGraceMs].filter((ms): ms is number => ms !== undefined && ms > 0).map((ms) => ms / 4), MAX_SWEEP_MS);
    this.timer = setInterval(() => this.sweep(), Math.max(MIN_SWEEP_MS, Number.isFinite(period) ? period : MAX_SWEEP_MS));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether an agent process has nothing to do now (it may be passivated). */
  isIdle(proc: ManagedProcess): boolean {
    return proc.ready && proc.status === 'idle' && !proc.passivating && this.options.delivery.pendingCount(proc.id) === 0;
  }

  sweep(now = Date.now()): void {
    const { ttlMs, gcGraceMs } = this.options.lifecycle();
    if (ttlMs > 0) {
      for (const proc of this.options.supervisor.list()) {
        if (proc.kind !== 'agent' || !proc.alive) continue;
        if (this.isIdle(proc) && now - proc.lastActiveAt >= ttlMs) {
          void this.options.supervisor.passivate(proc, this.options.gracePeriodMs());
          continue;
        }
        const waitingSince = proc.ready && !proc.passivating ? this.options.waitingSince?.(proc) : undefined;
        if (waitingSince !== undefined && now - waitingSince >= ttlMs) void this.options.supervisor.passivate(proc, this.options.gracePeriodMs(), waitingSince);
      }
    }
    if (gcGraceMs !== undefined && now - this.lastGcAt >= Math.min(MAX_GC_INTERVAL_MS, Math.max(MIN_SWEEP_MS, gcGraceMs / 4))) {
      this.lastGcAt = now;
      this.collect(gcGraceMs, now);
    }
  }

  /** Deletes the state of instances idle (not running, nothing queued) for longer than `graceMs`. */
  private collect(graceMs: number, now: number): void {
    const { supervisor, delivery, logger } = this.options;
    for (const instance of listInstanceDirs(this.options.stateRoot, this.options.workspaceId)) {
      const id = { agent: instance.agentName, instanceKey: instance.instanceKey };
      const proc = supervisor.get('agent', id.agent, id.instanceKey);
      if (proc?.alive || proc?.status === 'queued' || delivery.pendingCount(id) > 0) continue;
      const lastActive = proc?.lastActiveAt ?? lastModified(instance.dir, instance.updatedAt);
      if (now - lastActive < graceMs) continue;
      delivery.forget(id);
      rmSync(instance.dir, { recursive: true, force: true });
      if (proc) supervisor.forget(proc);
      this.options.metrics.instancesCollected.inc({ agent: id.agent });
      logger.info({ agent: id.agent, instanceKey: id.instanceKey, idleMs: now - lastActive, dir: instance.dir }, 'instance state deleted after gcGraceSeconds idle');
    }
  }
}

function lastModified(dir: string, updatedAt: string | undefined): number {
  const recorded = updatedAt ? Date.parse(updatedAt) : Number.NaN;
  if (Number.isFinite(recorded)) return recorded;
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return Date.now();
  }
}
