/**
 * The process table and its restart policy (SPEC.md §2.2): on-demand agents, always-on connectors,
 * crash isolation, immediate respawn then exponential backoff, reconciliation every 5 s, and
 * graceful shutdown of everything. A deterministic start-up failure is not a crash: the process
 * stays `failed` (no restart loop) until the bundle changes or someone restarts it.
 */
import type { Assignment } from '../../shared/ipc/control-protocol.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { ErrorShape } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ShutdownReason } from '../../shared/types/events.ts';
import type { ChildLauncher, LaunchOptions } from './child-launcher.ts';
import type { WarmChild } from './warm-pool.ts';
import { type BackoffPolicy, backoffDelayMs } from './crash-backoff.ts';
import { ManagedProcess, type ProcessExit, type ProcessKind, processKey } from './managed-process.ts';

export interface SpawnSpec {
  /** Command line of a bare child; `output` overrides the supervisor's (the interactive cli connector writes to the terminal). */
  launch: Omit<LaunchOptions, 'output'> & { output?: LaunchOptions['output'] };
  /** Who the child becomes, sent in its `runtime.assign`. */
  assignment: Assignment;
}

export interface SupervisorOptions {
  logger: RootLogger;
  launcher: ChildLauncher;
  backoff: BackoffPolicy;
  output: 'inherit' | number;
  startupTimeoutMs(): number;
  spawnSpec(kind: ProcessKind, name: string, instanceKey: string): SpawnSpec;
  onMessage(message: TypedIpcMessage, process: ManagedProcess): void;
  /** Its `runtime.assign` was sent: events may be sent now (the child runs them once started). */
  onAssigned(process: ManagedProcess): void;
  onStarted(process: ManagedProcess): void;
  onStartFailed(process: ManagedProcess, error: ErrorShape, retryable: boolean): void;
  /** Called after every exit, before any respawn is scheduled. */
  onExit(process: ManagedProcess, exit: ProcessExit): void;
  /** Whether a cleanly exited agent should come back (e.g. it still has pending events). */
  wantsRestartAfterCleanExit(process: ManagedProcess): boolean;
  onRestart?(process: ManagedProcess): void;
  /** A warm agent process for `agent`, if the pool has one ready. */
  takeWarm?(agent: string): WarmChild | undefined;
  /** At most this many agent instance processes live at once (lifecycle; Infinity = no limit). */
  maxLiveAgents?(): number;
  /** Whether an agent process has nothing to do (no queued event, no turn): it may be passivated. */
  isIdle?(process: ManagedProcess): boolean;
  /** Since when (ms since the epoch) its turn only waits for an approval or a reply; undefined when it does not. */
  waitingSince?(process: ManagedProcess): number | undefined;
  /** How long a passivated process may take to drain. */
  passivateGraceMs?(): number;
}

export const RECONCILE_INTERVAL_MS = 5_000;

export class Supervisor {
  private readonly table = new Map<string, ManagedProcess>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Agent processes waiting for a live-process slot, in arrival order (their events wait in the inbox). */
  private readonly admission: ManagedProcess[] = [];
  /**
   * Agents started here and not yet seen dead: what counting live agents walks instead of every
   * row (with ttlSeconds most of 10,000 rows are passivated, and asking each row whether it is
   * alive cost ~250 µs per count, several counts per new instance).
   */
  private readonly startedAgents = new Set<ManagedProcess>();
  private reconcileTimer: ReturnType<typeof setInterval> | undefined;
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  startReconciling(): void {
    this.reconcileTimer ??= setInterval(() => this.reconcile(), RECONCILE_INTERVAL_MS);
  }

  get(kind: ProcessKind, name: string, instanceKey: string): ManagedProcess | undefined {
    return this.table.get(processKey(kind, name, instanceKey));
  }

  /** By table key (`agent:instanceKey`, `@connection/name`). */
  byKey(key: string): ManagedProcess | undefined {
    return this.table.get(key);
  }

  list(): ManagedProcess[] {
    return [...this.table.values()];
  }

  /**
   * The process for `(name, instanceKey)`, spawned on first use (auto-spawn, ARCHITECTURE §2). A
   * process in backoff waits for its timer; a failed one waits for a restart; one that is down for
   * another reason comes back now.
   */
  ensure(kind: ProcessKind, name: string, instanceKey: string): ManagedProcess {
    const key = processKey(kind, name, instanceKey);
    let proc = this.table.get(key);
    if (!proc) {
      proc = this.create(kind, name, instanceKey);
      this.table.set(key, proc);
    }
    const waiting = proc.status === 'crashLoopBackOff' || proc.status === 'draining' || proc.status === 'failed' || proc.status === 'queued';
    // Events that arrive while a process is being replaced wait in its inbox for the replacement.
    if (!proc.alive && !this.stopping && !waiting && !proc.replacing) this.spawn(proc);
    return proc;
  }

  /** Agent processes running or starting (what maxLiveProcesses bounds). */
  liveAgentCount(): number {
    return this.liveAgents().length;
  }

  private liveAgents(): ManagedProcess[] {
    const live: ManagedProcess[] = [];
    for (const proc of this.startedAgents) {
      if (!proc.alive) this.startedAgents.delete(proc);
      // A row forgotten or replaced while its process still exits is no longer the instance's.
      else if (this.table.get(proc.key) === proc) live.push(proc);
    }
    return live;
  }

  /** Agent instances waiting for a live-process slot. */
  get queuedCount(): number {
    return this.admission.length;
  }

  /**
   * Stops an idle instance and keeps its row (`passivated`): its state stays on disk and its next
   * event starts it again (SPEC.md §1.2 lifecycle.ttlSeconds). With `waitingSince`, an instance
   * whose turn only waits for an approval or a reply (issue 12): the agent stops without finishing
   * the turn (as if it had crashed there, which durable execution resumes from), and the answer,
   * not its pending event, starts it again (`wake`).
   */
  async passivate(proc: ManagedProcess, gracePeriodMs: number, waitingSince?: number): Promise<void> {
    if (!proc.alive || proc.passivating || proc.status === 'draining') return;
    proc.passivating = true;
    proc.suspended = waitingSince !== undefined;
    if (waitingSince === undefined) this.options.logger.info({ process: proc.key, childPid: proc.pid, idleMs: Date.now() - proc.lastActiveAt }, 'passivating an idle instance');
    else this.options.logger.info({ process: proc.key, childPid: proc.pid, waitingMs: Date.now() - waitingSince }, 'passivating an instance that waits for an approval or a reply');
    await proc.shutdown(gracePeriodMs, 'passivate');
  }

  /** The approval or reply a suspended instance waited for has come: its process starts again and resumes the turn. */
  wake(agent: string, instanceKey: string): void {
    const proc = this.get('agent', agent, instanceKey);
    if (!proc?.suspended || proc.alive || proc.status !== 'passivated' || this.stopping) return;
    this.options.logger.info({ process: proc.key }, 'waking a passivated instance: what it waited for has come');
    this.spawn(proc);
  }

  /** Graceful stop; `restart` brings it back with a fresh spawn spec (and a clean record) afterwards. */
  async stop(proc: ManagedProcess, gracePeriodMs: number, reason: ShutdownReason, restart: boolean): Promise<void> {
    this.clearTimer(proc.key);
    proc.retired = !restart;
    // A restart replaces the row: respawning this one on its exit (events were waiting) would leave
    // two processes for the instance — the respawned one untracked — and run its events twice.
    proc.replacing = restart;
    await proc.shutdown(gracePeriodMs, reason);
    // A newer process may have taken the slot meanwhile; only remove our own.
    if (this.table.get(proc.key) === proc) this.table.delete(proc.key);
    if (restart && !this.stopping) this.ensure(proc.kind, proc.name, proc.instanceKey);
  }

  /** Forgets a process that is down (failed or crashed), so that its next `ensure` starts afresh. */
  forget(proc: ManagedProcess): void {
    if (proc.alive) return;
    this.clearTimer(proc.key);
    if (this.table.get(proc.key) === proc) this.table.delete(proc.key);
  }

  async shutdownAll(gracePeriodMs: number): Promise<void> {
    this.stopping = true;
    this.admission.length = 0;
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    for (const key of this.timers.keys()) this.clearTimer(key);
    // Agents first so their final replies can still reach connectors; then connectors.
    const agents = this.list().filter((p) => p.kind === 'agent');
    for (const p of agents) p.retired = true;
    await Promise.all(agents.map((p) => p.shutdown(gracePeriodMs, 'orchestrator_shutdown')));
    const connectors = this.list().filter((p) => p.kind === 'connector');
    for (const p of connectors) p.retired = true;
    await Promise.all(connectors.map((p) => p.shutdown(Math.min(gracePeriodMs, 5_000), 'orchestrator_shutdown')));
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** SPEC.md §2.2: respawn what is due. Called every 5 s and after every exit. */
  reconcile(): void {
    if (this.stopping) return;
    const now = Date.now();
    for (const proc of this.table.values()) {
      if (proc.alive || proc.retired || proc.replacing) continue;
      const due = proc.nextSpawnAllowedAt === undefined || proc.nextSpawnAllowedAt <= now;
      if (due && (proc.status === 'crashed' || proc.status === 'crashLoopBackOff')) this.spawn(proc);
    }
  }

  private create(kind: ProcessKind, name: string, instanceKey: string): ManagedProcess {
    const spec = this.options.spawnSpec(kind, name, instanceKey);
    return new ManagedProcess({
      kind,
      name,
      instanceKey,
      launch: { ...spec.launch, output: spec.launch.output ?? this.options.output },
      assignment: spec.assignment,
      startupTimeoutMs: this.options.startupTimeoutMs(),
      launcher: this.options.launcher,
      ...(this.options.takeWarm ? { takeWarm: this.options.takeWarm } : {}),
      logger: this.options.logger,
      onMessage: (message, p) => this.options.onMessage(message, p),
      onAssigned: (p) => this.options.onAssigned(p),
      onStarted: (p) => this.options.onStarted(p),
      onStartFailed: (p, error, retryable) => this.options.onStartFailed(p, error, retryable),
      onExit: (p, exit) => this.handleExit(p, exit),
    });
  }

  private spawn(proc: ManagedProcess): void {
    proc.nextSpawnAllowedAt = undefined;
    if (proc.kind === 'agent' && this.liveAgentCount() >= this.maxLiveAgents()) {
      // No slot: the instance waits (its events stay in the durable inbox) and an idle one makes room.
      if (!this.admission.includes(proc)) this.admission.push(proc);
      proc.status = 'queued';
      this.makeRoom();
      return;
    }
    try {
      proc.start();
      if (proc.kind === 'agent') this.startedAgents.add(proc);
    } catch (error) {
      this.options.logger.error({ process: proc.key, err: error }, 'spawn failed');
      proc.status = 'crashed';
      proc.recordError('SPAWN_FAILED', error instanceof Error ? error.message : String(error));
      this.handleExit(proc, { exitCode: null, signal: null, crashed: true });
    }
  }

  private maxLiveAgents(): number {
    return this.options.maxLiveAgents?.() ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Passivates least recently used idle agents so that queued instances can start: one victim per
   * queued instance not yet covered by a drain in progress (their exits admit the queue).
   */
  private makeRoom(): void {
    const agents = this.liveAgents();
    const draining = agents.filter((p) => p.passivating).length;
    const needed = this.admission.length - draining;
    if (needed <= 0) return;
    const grace = this.options.passivateGraceMs?.() ?? 5_000;
    const idle = agents
      .filter((p) => p.ready && !p.passivating && p.status === 'idle' && this.options.isIdle?.(p) !== false)
      .sort((a, b) => a.lastActiveAt - b.lastActiveAt);
    for (const victim of idle.slice(0, needed)) void this.passivate(victim, grace);
    // Then instances that only wait for a human or another agent, longest waiting first.
    const waiting = agents
      .filter((p) => p.ready && !p.passivating)
      .map((p) => ({ p, since: this.options.waitingSince?.(p) }))
      .filter((w): w is { p: ManagedProcess; since: number } => w.since !== undefined)
      .sort((a, b) => a.since - b.since);
    for (const { p, since } of waiting.slice(0, Math.max(0, needed - idle.length))) void this.passivate(p, grace, since);
  }

  /** An instance just became idle: if others wait for a slot, it may make room for them. */
  nudge(): void {
    if (this.admission.length > 0) this.makeRoom();
  }

  /** Starts queued instances while there are slots (after any agent exit). */
  private admitQueued(): void {
    while (this.admission.length > 0 && this.liveAgentCount() < this.maxLiveAgents() && !this.stopping) {
      const next = this.admission.shift();
      if (!next || next.alive || next.retired || next.replacing || this.table.get(next.key) !== next) continue;
      next.status = 'spawning';
      this.spawn(next);
    }
    if (this.admission.length > 0) this.makeRoom();
  }

  private handleExit(proc: ManagedProcess, exit: ProcessExit): void {
    const { logger } = this.options;
    this.options.onExit(proc, exit);
    if (proc.kind === 'agent') queueMicrotask(() => this.admitQueued());
    if (proc.retired || proc.replacing || this.stopping) return;
    if (proc.status === 'passivated') {
      logger.info({ process: proc.key }, 'instance passivated');
      // An event that arrived during the drain brings it straight back.
      if (this.options.wantsRestartAfterCleanExit(proc)) this.spawn(proc);
      return;
    }
    if (proc.startFailure) {
      logger.warn({ process: proc.key, code: proc.startFailure.code }, 'not restarting a process that cannot start; fix the bundle, then restart it');
      return;
    }
    if (!exit.crashed) {
      logger.info({ process: proc.key, childPid: proc.pid }, 'process exited cleanly');
      if (this.options.wantsRestartAfterCleanExit(proc)) this.spawn(proc);
      return;
    }
    proc.consecutiveCrashes += 1;
    proc.restarts += 1;
    const delay = backoffDelayMs(proc.consecutiveCrashes, this.options.backoff);
    logger.warn(
      { process: proc.key, childPid: proc.pid, exitCode: exit.exitCode, signal: exit.signal, consecutiveCrashes: proc.consecutiveCrashes, backoffMs: delay },
      'process crashed; respawning',
    );
    this.options.onRestart?.(proc);
    if (delay === 0) {
      this.spawn(proc);
      return;
    }
    proc.status = 'crashLoopBackOff';
    proc.nextSpawnAllowedAt = Date.now() + delay;
    logger.warn(
      { process: proc.key, consecutiveCrashes: proc.consecutiveCrashes, backoffMs: delay, nextSpawnAllowedAt: new Date(proc.nextSpawnAllowedAt).toISOString() },
      'crashLoopBackOff',
    );
    this.clearTimer(proc.key);
    this.timers.set(
      proc.key,
      setTimeout(() => {
        this.timers.delete(proc.key);
        this.reconcile();
      }, delay),
    );
  }

  private clearTimer(key: string): void {
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }
}
