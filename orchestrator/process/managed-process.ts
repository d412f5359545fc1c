/**
 * One supervised child (agent or connector) and its start-up protocol (ARCHITECTURE §2): every child
 * starts bare and says `runtime.ready`; it then receives its identity and plan in one
 * `runtime.assign` and answers `runtime.started` — or `runtime.failed` with the reason, which is
 * final until the bundle changes or a restart. A warm pool process has already said ready, so its
 * start is the same protocol without the wait. No `started` within the start-up timeout is
 * `E_AGENT_START_TIMEOUT`. Restart policy lives in the supervisor; this class only reports.
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type Assignment, controlEvent, parseControl } from '../../shared/ipc/control-protocol.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { type ErrorShape, runtimeError, STARTUP_PHASE } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ShutdownReason } from '../../shared/types/events.ts';
import type { ChildLauncher, LaunchedChild, LaunchOptions } from './child-launcher.ts';
import { assignmentFor } from '../../shared/ipc/primed-assignment.ts';
import type { WarmChild } from './warm-pool.ts';
import { processRssBytes } from './process-rss.ts';

/**
 * SPEC.md §2.2 statuses, plus `failed` (cannot start; not retried), `passivated` (stopped while
 * idle; starts again on its next event) and `queued` (wants to start; waits for a live-process slot).
 */
export type ProcessStatus =
  | 'spawning'
  | 'idle'
  | 'processing'
  | 'draining'
  | 'terminated'
  | 'crashed'
  | 'crashLoopBackOff'
  | 'failed'
  | 'passivated'
  | 'queued';

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
  /** Exit 0 is `terminated`; anything else (signal, non-zero) is a crash. */
  crashed: boolean;
}

/** What `/v1/processes` and `goondan ps` show of the last thing that went wrong. */
export interface LastError {
  code: string;
  message: string;
  at: string;
}

export type ProcessKind = 'agent' | 'connector';

export interface ManagedProcessOptions {
  kind: ProcessKind;
  /** Agent name or Connection name (the IPC address). */
  name: string;
  instanceKey: string;
  /** Command line of a bare child (used when no warm process is available). */
  launch: LaunchOptions;
  assignment: Assignment;
  startupTimeoutMs: number;
  launcher: ChildLauncher;
  /** A warm pool process (agents only): ready, or still booting (then its `runtime.ready` starts the assignment). */
  takeWarm?(agent: string): WarmChild | undefined;
  logger: RootLogger;
  /** Every message but the start-up protocol's own. */
  onMessage(message: TypedIpcMessage, process: ManagedProcess): void;
  /** `runtime.assign` was sent: events may follow it at once (the child runs them once started). */
  onAssigned(process: ManagedProcess): void;
  onStarted(process: ManagedProcess): void;
  onStartFailed(process: ManagedProcess, error: ErrorShape, retryable: boolean): void;
  onExit(process: ManagedProcess, exit: ProcessExit): void;
}

/** Table key: `agent:instanceKey` for agents (agentKey), `@connection/<name>` for connectors (never collide). */
export function processKey(kind: ProcessKind, name: string, instanceKey: string): string {
  return kind === 'agent' ? agentKey({ agent: name, instanceKey }) : `@connection/${name}`;
}

/** A child that sent `runtime.failed` gets this long to exit on its own before it is killed. */
const FAILED_EXIT_GRACE_MS = 2_000;

/**
 * Incarnations are numbered across all processes, not per ManagedProcess: a restart or reload puts a
 * new ManagedProcess under the same key, and a late reply to its predecessor must not match it.
 */
let lastIncarnation = 0;

export class ManagedProcess {
  readonly key: string;
  status: ProcessStatus = 'spawning';
  /**
   * This incarnation was sent its `runtime.assign`: events may be delivered. They follow the
   * assignment on the same ordered channel and wait in the child until it is built, instead of
   * waiting here for `runtime.started` (an IPC round trip off a new instance's first reply).
   */
  assigned = false;
  /** Started (assigned and built). */
  ready = false;
  pid: number | undefined;
  /** New on every spawn (unique in the daemon) so stale replies to an older incarnation can be recognised. */
  incarnation = 0;
  consecutiveCrashes = 0;
  restarts = 0;
  startedAt: string | undefined;
  nextSpawnAllowedAt: number | undefined;
  /** Set when the orchestrator wants this process to stay down (shutdown, removed from config). */
  retired = false;
  /**
   * Stopped to be replaced by a new process (restart, reload): this row must not be respawned —
   * the replacement is a new row, made once this one has exited.
   */
  replacing = false;
  lastError: LastError | undefined;
  /** A deterministic start-up failure: not retried until the bundle changes or a restart. */
  startFailure: ErrorShape | undefined;
  /** Last time work reached or left this instance (ms since the epoch): the lifecycle's idle clock. */
  lastActiveAt = Date.now();
  /** Draining because it was idle (or made room); it ends `passivated`, not `terminated`. */
  passivating = false;
  /**
   * Passivated while its turn waited for a human approval or another agent's reply: the
   * unfinished event stays in its inbox, and the answer (not the event) starts it again.
   */
  suspended = false;
  private child: LaunchedChild | undefined;
  private shutdownAcked = false;
  private startupTimer: ReturnType<typeof setTimeout> | undefined;
  private spawnedAt = 0;
  /** A spare refused an assignment `asPrimed` (E_ASSIGNMENT_NOT_PRIMED): later ones carry the plans. */
  private wholeAssignments = false;
  private assignedAsPrimed = false;
  private failedToStart = false;

  constructor(readonly options: ManagedProcessOptions) {
    this.key = processKey(options.kind, options.name, options.instanceKey);
  }

  get kind() {
    return this.options.kind;
  }
  get name() {
    return this.options.name;
  }
  get instanceKey() {
    return this.options.instanceKey;
  }
  get alive(): boolean {
    return this.child?.handle.alive === true;
  }
  /** The agent address (for connectors: the connection name and its key). */
  get id(): AgentId {
    return { agent: this.options.name, instanceKey: this.options.instanceKey };
  }

  /** Spawns a bare child (or adopts a warm one) and runs the start-up protocol. */
  start(): void {
    if (this.alive) return;
    this.incarnation = ++lastIncarnation;
    this.assigned = false;
    this.ready = false;
    this.shutdownAcked = false;
    this.startFailure = undefined;
    this.failedToStart = false;
    this.passivating = false;
    this.suspended = false;
    this.status = 'spawning';
    this.touch();
    const incarnation = this.incarnation;
    const warm = this.options.kind === 'agent' ? this.options.takeWarm?.(this.name) : undefined;
    const child = warm?.child ?? this.options.launcher.launch(this.options.launch);
    this.child = child;
    this.pid = child.handle.pid;
    this.spawnedAt = performance.now();
    this.startedAt = new Date().toISOString();
    child.transport.onMessage((message) => {
      if (incarnation === this.incarnation) this.receive(message);
    });
    void child.handle.exited.then((exit) => {
      if (incarnation !== this.incarnation) return;
      this.clearStartupTimer();
      const crashed = !(exit.exitCode === 0 && exit.signal === null);
      this.assigned = false;
      this.ready = false;
      if (this.startFailure) this.status = 'failed';
      else if (this.passivating && !crashed) this.status = 'passivated';
      else {
        this.status = crashed ? 'crashed' : 'terminated';
        // A start-up failure already recorded why this incarnation died; keep that.
        if (crashed && !this.failedToStart) this.recordError('PROCESS_CRASHED', exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.exitCode}`);
      }
      this.options.onExit(this, { ...exit, crashed });
    });
    this.startupTimer = setTimeout(() => this.startupTimedOut(), this.options.startupTimeoutMs);
    // Only a ready spare can have been primed; a booting one is assigned on its runtime.ready.
    if (warm?.ready) this.assign(this.wholeAssignments ? undefined : warm.primed);
  }

  send(message: TypedIpcMessage): boolean {
    return this.child?.transport.send(message) ?? false;
  }

  /**
   * SPEC.md §2.3: send `shutdown`, let the child drain and ack, SIGKILL after the grace period.
   * Resolves once the process has exited.
   */
  async shutdown(gracePeriodMs: number, reason: ShutdownReason): Promise<void> {
    if (!this.alive) return;
    this.status = 'draining';
    const sent = this.send({ type: 'shutdown', from: ORCHESTRATOR, to: this.name, payload: { gracePeriodMs, reason } });
    if (!sent) this.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.alive) return;
      this.options.logger.warn({ process: this.key, childPid: this.pid, gracePeriodMs, acked: this.shutdownAcked }, 'grace period over: SIGKILL');
      this.kill();
    }, gracePeriodMs);
    await this.child?.handle.exited;
    clearTimeout(timer);
  }

  kill(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): void {
    this.child?.handle.kill(signal);
  }

  async waitForExit(): Promise<void> {
    await this.child?.handle.exited;
  }

  /** Resident set size in bytes; undefined when not running. */
  async rssBytes(): Promise<number | undefined> {
    return this.alive && this.pid !== undefined ? processRssBytes(this.pid) : undefined;
  }

  /** Work reached or left the instance now. */
  touch(): void {
    this.lastActiveAt = Date.now();
  }

  recordError(code: string, message: string): void {
    this.lastError = { code, message, at: new Date().toISOString() };
  }

  // ── start-up protocol ───────────────────────────────────────────────────

  private receive(message: TypedIpcMessage): void {
    if (message.type === 'shutdown_ack') this.shutdownAcked = true;
    if (message.type !== 'event') {
      this.options.onMessage(message, this);
      return;
    }
    const type = message.payload.type;
    // A spare's answer to the pool's priming that crossed its assignment: nobody waits for it.
    if (type === 'runtime.primed') return;
    if (type !== 'runtime.ready' && type !== 'runtime.started' && type !== 'runtime.failed') {
      this.options.onMessage(message, this);
      return;
    }
    const parsed = parseControl(message.payload);
    if (!parsed.ok) {
      // Dropped, logged and counted where every other malformed control event is.
      this.options.onMessage(message, this);
      return;
    }
    const control = parsed.message;
    if (control.type === 'runtime.ready') this.assign();
    else if (control.type === 'runtime.started') this.started(control.payload.startupMs);
    else if (control.type === 'runtime.failed') this.failed(control.payload.error, control.payload.retryable);
  }

  /** `primed`: the plans the warm spare was primed with, which it need not be sent again. */
  private assign(primed?: WarmChild['primed']): void {
    const assignment = assignmentFor(this.options.assignment, primed);
    this.assignedAsPrimed = 'asPrimed' in assignment;
    this.send({ type: 'event', from: ORCHESTRATOR, to: this.name, payload: controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignment) });
    this.assigned = true;
    this.options.onAssigned(this);
  }

  private started(childStartupMs: number): void {
    this.clearStartupTimer();
    this.ready = true;
    this.status = 'idle';
    this.options.logger.info(
      { process: this.key, childPid: this.pid, startupMs: Math.round(performance.now() - this.spawnedAt), childStartupMs: Math.round(childStartupMs), assignedAsPrimed: this.assignedAsPrimed },
      'process ready',
    );
    this.options.onStarted(this);
  }

  private failed(reported: ErrorShape, retryable: boolean): void {
    this.clearStartupTimer();
    this.failedToStart = true;
    // Callers are told which instance could not start, and that it happened before it served.
    const error: ErrorShape = { ...reported, details: { ...reported.details, agent: this.name, instanceKey: this.instanceKey, phase: STARTUP_PHASE } };
    this.recordError(error.code, error.message);
    if (reported.code === 'E_ASSIGNMENT_NOT_PRIMED') this.wholeAssignments = true;
    if (!retryable) {
      this.startFailure = error;
      // The row says so at once, not only when the dying child has exited.
      this.status = 'failed';
    }
    this.options.logger.error({ process: this.key, childPid: this.pid, error, retryable }, 'process failed to start');
    this.options.onStartFailed(this, error, retryable);
    const incarnation = this.incarnation;
    setTimeout(() => {
      if (incarnation === this.incarnation && this.alive) this.kill();
    }, FAILED_EXIT_GRACE_MS).unref?.();
  }

  private startupTimedOut(): void {
    this.startupTimer = undefined;
    if (this.ready || !this.alive) return;
    const seconds = Math.round(this.options.startupTimeoutMs / 1000);
    this.failedToStart = true;
    const error = runtimeError('E_AGENT_START_TIMEOUT', `${this.options.kind} '${this.name}' (instance '${this.instanceKey}') did not become ready within ${seconds} s`, {
      agent: this.name,
      instanceKey: this.instanceKey,
      phase: STARTUP_PHASE,
    });
    this.recordError(error.code, error.message);
    this.options.logger.error({ process: this.key, childPid: this.pid, startupTimeoutMs: this.options.startupTimeoutMs }, 'start-up timed out; killing');
    this.options.onStartFailed(this, error, true);
    this.kill();
  }

  private clearStartupTimer(): void {
    if (this.startupTimer) clearTimeout(this.startupTimer);
    this.startupTimer = undefined;
  }
}
