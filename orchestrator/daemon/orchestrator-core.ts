/**
 * The orchestrator core: process table, delivery, routing, approvals and the warm pool, wired to
 * each other and to a ChildLauncher — nothing here knows about HTTP, files of the bundle, Bun
 * subprocesses or terminals, so it runs over the in-memory launcher in unit tests exactly as it
 * runs over Bun IPC in the daemon (ARCHITECTURE §2).
 */
import { join } from 'node:path';
import { type ErrorShape, runtimeError } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { instancePaths, workspaceDir } from '../../shared/state-paths.ts';
import type { AgentPlan, ConnectionPlan, ModelPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { ShutdownReason } from '../../shared/types/events.ts';
import { ApprovalBroker, type PendingApproval } from '../approvals/approval-broker.ts';
import { ApprovalStore } from '../approvals/approval-store.ts';
import { Delivery } from '../delivery/delivery.ts';
import { EventLedger } from '../delivery/event-ledger.ts';
import { syncInstanceRecords } from '../delivery/instance-records.ts';
import { type DeletedInstance, InstanceRemoval } from './instance-removal.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { warnTornTail } from '../../shared/durability/line-boundary.ts';
import { retentionLimits } from '../../shared/durability/rotating-log.ts';
import { Metrics } from '../http/metrics.ts';
import type { ChildLauncher, LaunchOptions } from '../process/child-launcher.ts';
import type { BackoffPolicy } from '../process/crash-backoff.ts';
import type { ManagedProcess, ProcessExit, ProcessKind } from '../process/managed-process.ts';
import { processRssBytes } from '../process/process-rss.ts';
import { type SpawnSpec, Supervisor } from '../process/supervisor.ts';
import { InstanceLifecycle } from '../process/instance-lifecycle.ts';
import { LiveProcessBudget } from '../process/live-process-budget.ts';
import { WarmPool } from '../process/warm-pool.ts';
import type { ExternalSubmission, Submitted } from '../routing/external-submissions.ts';
import { type ClusterRouting, type ExchangeNote, Router } from '../routing/router.ts';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import type { ProcessRow } from '../http/api-server.ts';
import { usageRow } from '../usage/usage-row.ts';
import { ModelCalls } from '../usage/model-calls.ts';
import type { RequestSpans } from '../telemetry/request-spans.ts';
import { newSpanId, newTraceId } from '../../shared/ids.ts';
import { RuntimeEventBus } from './runtime-event-bus.ts';
import { RuntimeEventJournal } from './runtime-event-journal.ts';

/** What the core needs of the loaded bundle; swapped as a whole on reload. */
export interface CoreConfig {
  swarm: SwarmPlan;
  connections: ConnectionPlan[];
  spawnSpec(kind: ProcessKind, name: string, instanceKey: string): SpawnSpec;
  /** Command line of a bare agent process (warm pool). */
  agentLaunchOptions(): LaunchOptions;
  /** The Model an agent uses (budgets price estimates, rate limits are per Model). */
  modelOf(agent: string): ModelPlan | undefined;
  /** An agent's plan, for warm spares to rehearse (absent: spares are not primed). */
  agentPlan?(agent: string): AgentPlan | undefined;
}

/** What cluster mode (issue 15) plugs into the core; absent, the core is the single-node daemon. */
export interface CoreCluster {
  routing: ClusterRouting;
  /** An event left an instance's inbox here (done or given up). */
  onSettled(id: AgentId, eventId: string): void;
  /** `runtime.state.sync` of an agent. */
  syncState(proc: ManagedProcess): Promise<void>;
  /** `runtime.connection.exclusive` of a connector: resolves once this node holds the connection. */
  exclusiveConnection(proc: ManagedProcess): Promise<void>;
  /** The process stops because its instance moves to another node: its callers get the answer from there. */
  isHandingOver(proc: ManagedProcess): boolean;
}

export interface OrchestratorCoreOptions {
  config(): CoreConfig;
  stateRoot: string;
  launcher: ChildLauncher;
  logger: RootLogger;
  backoff: BackoffPolicy;
  output: 'inherit' | number;
  warmPoolSize: number;
  /** GOONDAN_APPROVALS=http: decisions may come through the API. */
  httpApprovals: boolean;
  /** Shows an approval at an interactive terminal; false when there is none. */
  promptInteractive(approval: PendingApproval): boolean;
  onExchange?(note: ExchangeNote): void;
  /** After the core handled an exit (the daemon watches its interactive connector). */
  onProcessExit?(proc: ManagedProcess, exit: ProcessExit): void;
  /** OpenTelemetry spans of inter-agent calls (only when spans are exported). */
  requestSpans?: RequestSpans;
  /** After a process said `runtime.started` and its queued events were delivered. */
  onProcessStarted?(proc: ManagedProcess): void;
  cluster?: CoreCluster;
}

export class OrchestratorCore {
  readonly metrics = new Metrics();
  readonly runtimeEvents: RuntimeEventBus;
  readonly supervisor: Supervisor;
  readonly delivery: Delivery;
  readonly router: Router;
  readonly approvals: ApprovalBroker;
  readonly pool: WarmPool;
  readonly modelCalls: ModelCalls;
  readonly ledger: EventLedger;
  readonly lifecycle: InstanceLifecycle;
  private readonly removal: InstanceRemoval;
  readonly liveBudget: LiveProcessBudget;
  private stopping = false;

  constructor(private readonly options: OrchestratorCoreOptions) {
    const { logger } = options;
    const config = options.config;
    this.runtimeEvents = new RuntimeEventBus(new RuntimeEventJournal(workspaceDir(options.stateRoot, config().swarm.workspaceId), retentionLimits(config().swarm.durability), warnTornTail(logger)));
    const fsync = new FsyncPolicy(config().swarm.durability.fsync);
    this.ledger = new EventLedger(join(workspaceDir(options.stateRoot, config().swarm.workspaceId), 'event-ledger.jsonl'), fsync, Date.now, (error) =>
      logger.error({ err: error }, 'the event ledger could not be written (disk full?); the record is kept in memory and written with the next one'),
    );
    this.delivery = new Delivery({
      stateRoot: options.stateRoot,
      workspaceId: config().swarm.workspaceId,
      logger,
      fsync,
      inboxCompactLines: config().swarm.durability.retention.inboxCompactLines,
      ...(options.cluster ? { onSettled: (id: AgentId, eventId: string) => options.cluster?.onSettled(id, eventId) } : {}),
      onDeadLetter: (id, event, eventId, reason, error) => {
        this.ledger.dead(eventId, reason, error);
        this.router.eventDead(eventId, reason, error);
        // A wait=false caller has no reply to see it in: the stream (and its log) must show it.
        this.runtimeEvents.publish({
          type: 'event.dead',
          eventId,
          reason,
          agentName: id.agent,
          instanceKey: id.instanceKey,
          traceId: event?.traceId ?? newTraceId(),
          spanId: newSpanId(),
          ...(event?.parentSpanId !== undefined ? { parentSpanId: event.parentSpanId } : {}),
          timestamp: new Date().toISOString(),
        });
      },
    });
    this.pool = new WarmPool({
      size: options.warmPoolSize,
      logger,
      launcher: options.launcher,
      launchOptions: () => config().agentLaunchOptions(),
      primingPlan: (agent) => {
        const agentPlan = config().agentPlan?.(agent);
        return agentPlan ? { agentPlan, swarmPlan: config().swarm } : undefined;
      },
      likelyAgent: () => config().swarm.entryAgent,
      // Spares become live agents: they share the live-process budget that memory sets.
      room: () => this.liveBudget.limit - this.supervisor.liveAgentCount(),
    });
    this.liveBudget = new LiveProcessBudget(config().swarm.lifecycle.maxLiveProcesses);
    this.supervisor = new Supervisor({
      maxLiveAgents: () => this.liveBudget.limit,
      isIdle: (proc) => this.lifecycle.isIdle(proc),
      waitingSince: (proc) => this.waitingSince(proc),
      passivateGraceMs: () => config().swarm.shutdownGracePeriodMs,
      logger,
      launcher: options.launcher,
      takeWarm: (agent) => this.pool.take(agent),
      backoff: options.backoff,
      output: options.output,
      startupTimeoutMs: () => config().swarm.startupTimeoutMs,
      spawnSpec: (kind, name, instanceKey) => config().spawnSpec(kind, name, instanceKey),
      onMessage: (message, proc) => this.router.handle(message, proc),
      onAssigned: (proc) => this.onAssigned(proc),
      onStarted: (proc) => this.onStarted(proc),
      onStartFailed: (proc, error, retryable) => this.onStartFailed(proc, error, retryable),
      onExit: (proc, exit) => this.onExit(proc, exit),
      // A suspended instance comes back when its answer does, not because its waiting event is pending.
      wantsRestartAfterCleanExit: (proc) => proc.kind === 'agent' && this.delivery.pendingCount(proc.id) > 0 && !(proc.suspended && this.stillWaiting(proc)),
      onRestart: (proc) => this.metrics.restarts.inc({ process: proc.kind === 'agent' ? proc.name : `connection/${proc.name}` }),
    });
    this.lifecycle = new InstanceLifecycle({
      lifecycle: () => config().swarm.lifecycle,
      gracePeriodMs: () => config().swarm.shutdownGracePeriodMs,
      stateRoot: options.stateRoot,
      workspaceId: config().swarm.workspaceId,
      supervisor: this.supervisor,
      delivery: this.delivery,
      metrics: this.metrics,
      logger,
      waitingSince: (proc) => this.waitingSince(proc),
    });
    this.approvals = new ApprovalBroker({
      logger,
      onDecidedWhileAway: (agent, instanceKey) => this.supervisor.wake(agent, instanceKey),
      httpApprovals: options.httpApprovals,
      promptInteractive: (a) => options.promptInteractive(a),
      store: new ApprovalStore(options.stateRoot, () => config().swarm.workspaceId, fsync),
    });
    this.modelCalls = new ModelCalls({
      swarm: () => config().swarm,
      modelOf: (agent) => config().modelOf(agent),
      approvals: this.approvals,
      logger,
      dayFile: join(workspaceDir(options.stateRoot, config().swarm.workspaceId), 'usage-today.json'),
    });
    this.router = new Router({
      approvals: this.approvals,
      ledger: this.ledger,
      modelCalls: this.modelCalls,
      ...(options.requestSpans ? { requestSpans: options.requestSpans } : {}),
      swarm: () => config().swarm,
      connections: () => config().connections,
      supervisor: this.supervisor,
      delivery: this.delivery,
      metrics: this.metrics,
      runtimeEvents: this.runtimeEvents,
      logger,
      ...(options.onExchange ? { onExchange: options.onExchange } : {}),
      ...(options.cluster
        ? {
            cluster: options.cluster.routing,
            syncState: (proc: ManagedProcess) => options.cluster?.syncState(proc) ?? Promise.resolve(),
            exclusiveConnection: (proc: ManagedProcess) => options.cluster?.exclusiveConnection(proc) ?? Promise.resolve(),
          }
        : {}),
      syncInstanceRecords: (id) => syncInstanceRecords(instancePaths(options.stateRoot, config().swarm.workspaceId, id.agent, id.instanceKey), fsync),
      onRestartRequested: (proc, reason) => {
        logger.info({ process: proc.key, reason }, 'agent requested a restart');
        void this.supervisor.stop(proc, config().swarm.shutdownGracePeriodMs, 'restart', true);
      },
    });
    this.removal = new InstanceRemoval({
      stateRoot: options.stateRoot,
      workspaceId: () => config().swarm.workspaceId,
      gracePeriodMs: () => config().swarm.shutdownGracePeriodMs,
      supervisor: this.supervisor,
      delivery: this.delivery,
      router: this.router,
      approvals: this.approvals,
      logger,
    });
  }

  /** Redelivers what a previous run left unacknowledged, fills the warm pool, starts reconciling. */
  start(isKnownAgent: (name: string) => boolean): void {
    this.approvals.restore();
    // In a cluster, JetStream holds the inboxes: the owner of each partition gets them redelivered.
    const leftOver = this.options.cluster ? [] : this.delivery.recoverPending();
    for (const pending of leftOver) {
      if (!isKnownAgent(pending.agent)) continue;
      this.options.logger.info(pending, 'redelivering events left unacknowledged by a previous run');
      this.supervisor.ensure('agent', pending.agent, pending.instanceKey);
    }
    this.pool.fill();
    this.supervisor.startReconciling();
    this.lifecycle.start();
    const budget = this.liveBudget;
    this.options.logger.info({ maxLiveProcesses: budget.limit, derived: budget.derived }, 'live agent process limit');
  }

  submit(submission: ExternalSubmission): Submitted {
    return this.router.submit(submission);
  }

  /** Graceful shutdown (SPEC.md §2.3): answer every waiter, drain every child, SIGKILL stragglers. */
  async stop(gracePeriodMs: number): Promise<void> {
    this.stopping = true;
    this.lifecycle.stop();
    this.pool.stop();
    // Running turns finish and answer their callers; a caller waiting on a process that is not
    // running (crash backoff, cannot start) would wait out the whole grace period: answer it now.
    this.router.failPendingWhere((targetKey) => this.supervisor.byKey(targetKey)?.alive !== true, 'the daemon is shutting down');
    await this.supervisor.shutdownAll(gracePeriodMs);
    this.router.failPendingWhere(() => true, 'the daemon is shutting down');
    this.approvals.clear();
    this.delivery.close();
    this.modelCalls.ledger.flush();
    this.ledger.close();
    this.runtimeEvents.close();
  }

  /**
   * Stops and starts again the processes of `filter` (`goondan restart`, `--watch`): the
   * replacement gets a fresh spawn spec and a clean record, also when the old one could not start.
   */
  async restart(filter: (proc: ManagedProcess) => boolean, reason: ShutdownReason): Promise<number> {
    const grace = this.options.config().swarm.shutdownGracePeriodMs;
    const targets = this.supervisor.list().filter(filter);
    await Promise.all(targets.map((proc) => this.restartOne(proc, grace, reason)));
    return targets.length;
  }

  /** `instance delete` and `restart --fresh` on this node (instance-removal.ts). */
  deleteInstance(instanceKey: string, agents: readonly string[], options: { keepQueued?: boolean } = {}): Promise<DeletedInstance> {
    return this.removal.delete(instanceKey, agents, options);
  }

  async processRows(): Promise<ProcessRow[]> {
    // The table is read in one go (no await in between), so the rows are one consistent moment;
    // only the RSS figures are filled in afterwards.
    const rows: ProcessRow[] = this.supervisor.list().map((proc) => ({
      kind: proc.kind,
      agent: proc.kind === 'agent' ? proc.name : null,
      connection: proc.kind === 'connector' ? proc.name : null,
      instanceKey: proc.instanceKey,
      pid: proc.alive ? (proc.pid ?? null) : null,
      status: proc.status,
      crashes: proc.consecutiveCrashes,
      restarts: proc.restarts,
      rss: null,
      startedAt: proc.startedAt ?? null,
      lastError: proc.lastError ? { ...proc.lastError } : null,
      usage: proc.kind === 'agent' ? usageRow(this.modelCalls.ledger.instance(proc.name, proc.instanceKey)) : null,
      node: null,
      queued: proc.kind === 'agent' ? (this.delivery.queuedIfLoaded(proc.id) ?? null) : null,
      ...(proc.nextSpawnAllowedAt ? { nextSpawnAllowedAt: new Date(proc.nextSpawnAllowedAt).toISOString() } : {}),
    }));
    // Warm processes not yet assigned to an instance.
    for (const pid of this.pool.pids()) {
      rows.push({ kind: 'pool', agent: null, connection: null, instanceKey: '', pid, status: 'idle', crashes: 0, restarts: 0, rss: null, startedAt: null, lastError: null, usage: null, node: null, queued: null });
    }
    await Promise.all(
      rows.map(async (row) => {
        if (row.pid !== null) row.rss = (await processRssBytes(row.pid)) ?? null;
      }),
    );
    return rows;
  }

  /** What /metrics shows of capacity: queued instances and the live-process limit. */
  capacity(): { queued: number; maxLive: number } {
    return { queued: this.supervisor.queuedCount, maxLive: this.liveBudget.limit };
  }

  processStatusCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const proc of this.supervisor.list()) counts[`${proc.kind}/${proc.status}`] = (counts[`${proc.kind}/${proc.status}`] ?? 0) + 1;
    const warm = this.pool.pids().length;
    if (warm > 0) counts['pool/idle'] = warm;
    return counts;
  }

  // ── process lifecycle ───────────────────────────────────────────────────

  private async restartOne(proc: ManagedProcess, grace: number, reason: ShutdownReason): Promise<void> {
    if (proc.alive) {
      await this.supervisor.stop(proc, grace, reason, true);
      return;
    }
    // Down (failed, crashed, in backoff): start afresh if anything waits for it; connectors always.
    this.supervisor.forget(proc);
    if (proc.kind === 'connector' || this.delivery.pendingCount(proc.id) > 0) this.supervisor.ensure(proc.kind, proc.name, proc.instanceKey);
  }

  private onStarted(proc: ManagedProcess): void {
    // The first agent measured refines the memory-derived live-process limit.
    if (proc.kind === 'agent' && this.liveBudget.derived) void proc.rssBytes().then((rss) => rss !== undefined && this.liveBudget.measured(rss));
    // Its events were sent with the assignment: it starts on them at once.
    if (proc.kind === 'agent' && this.delivery.pendingCount(proc.id) > 0) proc.status = 'processing';
    this.options.onProcessStarted?.(proc);
  }

  private onAssigned(proc: ManagedProcess): void {
    if (proc.kind !== 'agent') return;
    const flushed = this.delivery.flush(proc);
    if (flushed > 0) this.options.logger.info({ process: proc.key, redelivered: flushed }, 'delivered queued events');
  }

  /**
   * Since when an agent's turn has only waited for a human approval or another agent's sync reply
   * (the older of the two); undefined when it waits for neither. The agent itself has the last
   * word: told to passivate, it stops at once only if the turn still just waits.
   */
  private waitingSince(proc: ManagedProcess): number | undefined {
    if (proc.kind !== 'agent' || proc.status !== 'processing') return undefined;
    const since = [this.approvals.waitingSince(proc.key), this.router.pending.syncWaitSince(proc.key)].filter((t): t is number => t !== undefined);
    return since.length > 0 ? Math.min(...since) : undefined;
  }

  /** A suspended instance whose answer has not come yet: an undecided approval or an unanswered sync request. */
  private stillWaiting(proc: ManagedProcess): boolean {
    return this.approvals.hasUndecided(proc.name, proc.instanceKey) || this.router.pending.syncWaitSince(proc.key) !== undefined;
  }

  private onStartFailed(proc: ManagedProcess, error: ErrorShape, retryable: boolean): void {
    this.metrics.startFailures.inc({ agent: proc.kind === 'agent' ? proc.name : `connection/${proc.name}`, code: error.code });
    if (proc.kind !== 'agent') return;
    // A caller told that its request cannot run must not have it run later behind its back.
    this.router.failRequestsTargeting(proc.id, error, { deadLetter: !retryable });
  }

  private onExit(proc: ManagedProcess, exit: ProcessExit): void {
    this.router.processExited(proc);
    this.approvals.dropFor(proc.key);
    this.modelCalls.dropFor(proc.key);
    // A deleted instance's waiters are told so by deleteInstance, not that their events stay queued.
    if (proc.kind === 'agent' && proc.retired && !this.options.cluster?.isHandingOver(proc) && !this.removal.isDeleting(proc.id)) {
      const why = this.stopping ? 'the swarm is shutting down' : 'removed or deleted';
      const code = this.stopping ? 'DAEMON_STOPPING' : 'AGENT_UNAVAILABLE';
      this.router.failRequestsTargeting(proc.id, runtimeError(code, `agent '${proc.name}' stopped (${why}); the request stays queued for its next start`), { deadLetter: false });
    }
    if (proc.kind === 'agent' && exit.crashed && !proc.startFailure) this.recordCrash(proc);
    this.options.onProcessExit?.(proc, exit);
  }

  private recordCrash(proc: ManagedProcess): void {
    const dead = this.delivery.recordCrash(proc);
    if (!dead) return;
    // The poison event is gone: a healthy instance must not stay in a long backoff because of it.
    proc.consecutiveCrashes = 0;
    this.metrics.deadLetters.inc({ agent: proc.name });
    this.options.logger.error({ process: proc.key, eventId: dead.id }, 'event dead-lettered after repeated crashes');
    this.router.failRequestsFor(dead.id, 'AGENT_CRASHED', `agent '${proc.name}' crashed repeatedly while handling this request`);
  }
}
