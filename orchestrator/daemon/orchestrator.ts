/**
 * The daemon's composition root: config, process table, delivery, routing, HTTP API, connectors,
 * `--watch`, the runtime file, and graceful shutdown. It stays up with zero agents and spawns
 * them on demand (SPEC.md §2.1).
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Server } from 'bun';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { instancePaths, runtimeFilePath } from '../../shared/state-paths.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { CONTROL, controlEvent, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { ApprovalBroker, type PendingApproval } from '../approvals/approval-broker.ts';
import { approvalRoutes } from '../approvals/approval-routes.ts';
import { Delivery } from '../delivery/delivery.ts';
import { type DaemonApi, type ProcessRow, startApiServer } from '../http/api-server.ts';
import { Metrics } from '../http/metrics.ts';
import { backoffPolicyFromEnv } from '../process/crash-backoff.ts';
import { processRssBytes } from '../process/process-rss.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import { Supervisor } from '../process/supervisor.ts';
import { type ExchangeNote, type ExternalSubmission, Router } from '../routing/router.ts';
import { watchBundle } from '../watch/bundle-watcher.ts';
import { RuntimeEventBus } from './runtime-event-bus.ts';
import { isProcessAlive, readRuntimeFile, removeRuntimeFile, writeRuntimeFile } from './runtime-file.ts';
import { WarmPool } from '../process/warm-pool.ts';
import { checkSandbox, SandboxUnavailableError } from './sandbox-check.ts';
import { agentSpawnSpec, connectorSpawnSpec, poolSpawnOptions } from './spawn-specs.ts';
import { loadSwarmConfig, type SwarmConfig } from './swarm-config.ts';

export interface OrchestratorOptions {
  bundlePath: string;
  swarmName?: string;
  stateRoot: string;
  host: string;
  port: number;
  apiToken?: string;
  envFile?: string;
  watch: boolean;
  processEnv: Record<string, string | undefined>;
  logger: RootLogger;
  /** Where children write their logs: inherited stdout, or a log file descriptor. */
  childOutput: 'inherit' | number;
  /** Whether a cli Connection may read the terminal (stdin is a TTY and not one-shot mode). */
  interactive: boolean;
  /** Log file used instead of stdout in interactive and one-shot modes. */
  logFile?: string;
  onExchange?(note: ExchangeNote): void;
  /** The interactive cli connector finished (Ctrl-D): the user is done with this run. */
  onInteractiveEnd?(): void;
  /** Something the person starting the daemon must see once (e.g. tools run unsandboxed). */
  onWarning?(text: string): void;
}

/** Warm agent processes kept ready (GOONDAN_WARM_POOL overrides; 0 turns the pool off). */
export const DEFAULT_WARM_POOL_SIZE = 1;

export class AlreadyRunningError extends Error {
  override name = 'AlreadyRunningError';
}

export class Orchestrator {
  private config!: SwarmConfig;
  private supervisor!: Supervisor;
  private delivery!: Delivery;
  private router!: Router;
  private approvals!: ApprovalBroker;
  private pool: WarmPool | undefined;
  private server: Server<undefined> | undefined;
  private stopWatching: (() => void) | undefined;
  private readonly metrics = new Metrics();
  readonly runtimeEvents = new RuntimeEventBus();
  private readonly startedAt = Date.now();
  private ready = false;
  private stopping: Promise<void> | undefined;
  private runtimeFile: string | undefined;

  constructor(private readonly options: OrchestratorOptions) {}

  get apiUrl(): string {
    if (!this.server) return '';
    const host = this.server.hostname?.includes(':') ? `[${this.server.hostname}]` : this.server.hostname;
    return `http://${host}:${this.server.port}`;
  }

  get swarm() {
    return this.config.swarm;
  }

  /**
   * Loads the bundle (throws ConfigError on an invalid one, SandboxUnavailableError when an agent
   * requires a sandbox this host cannot give), starts the API and connectors.
   */
  async start(): Promise<void> {
    const { logger } = this.options;
    this.config = await loadSwarmConfig(this.configOptions());
    const sandboxWarning = checkSandbox(this.config);
    if (sandboxWarning !== undefined) {
      logger.warn({ code: 'W_SANDBOX_UNAVAILABLE' }, sandboxWarning);
      this.options.onWarning?.(sandboxWarning);
    }
    const { swarm } = this.config;
    const existing = readRuntimeFile(runtimeFilePath(this.options.stateRoot, swarm.workspaceId));
    if (existing && existing.pid !== process.pid && isProcessAlive(existing.pid)) {
      throw new AlreadyRunningError(
        `swarm '${swarm.name}' is already running (pid ${existing.pid}, API ${existing.apiUrl}); stop it first or use another --state-root`,
      );
    }
    this.delivery = new Delivery({ stateRoot: this.options.stateRoot, workspaceId: swarm.workspaceId, logger });
    const poolSize = Number(this.options.processEnv.GOONDAN_WARM_POOL ?? DEFAULT_WARM_POOL_SIZE);
    this.pool = new WarmPool({
      size: Number.isInteger(poolSize) && poolSize >= 0 ? poolSize : DEFAULT_WARM_POOL_SIZE,
      logger,
      spawnOptions: () => poolSpawnOptions(this.config, this.options.childOutput),
    });
    const pool = this.pool;
    this.supervisor = new Supervisor({
      logger,
      takeWarm: () => pool.take(),
      backoff: backoffPolicyFromEnv(this.options.processEnv),
      output: this.options.childOutput,
      spawnSpec: (kind, name, instanceKey) =>
        kind === 'agent'
          ? agentSpawnSpec(this.config, this.options, name, instanceKey)
          : connectorSpawnSpec(this.config, this.options, name),
      onMessage: (message, proc) => this.router.handle(message, proc),
      onExit: (proc, exit) => this.onProcessExit(proc, exit.crashed),
      wantsRestartAfterCleanExit: (proc) =>
        proc.kind === 'connector' ? false : this.delivery.pendingCount(proc.name, proc.instanceKey) > 0,
      onRestart: (proc) => this.metrics.restarts.inc({ process: proc.kind === 'agent' ? proc.name : `connection/${proc.name}` }),
    });
    this.approvals = new ApprovalBroker({
      logger,
      httpApprovals: this.options.processEnv.GOONDAN_APPROVALS === 'http',
      promptInteractive: (approval) => this.promptInteractive(approval),
    });
    this.router = new Router({
      approvals: this.approvals,
      swarm: () => this.config.swarm,
      connections: () => this.config.connections,
      supervisor: this.supervisor,
      delivery: this.delivery,
      metrics: this.metrics,
      runtimeEvents: this.runtimeEvents,
      logger,
      ...(this.options.onExchange ? { onExchange: this.options.onExchange } : {}),
      onRestartRequested: (proc, reason) => {
        logger.info({ process: proc.key, reason }, 'agent requested a restart');
        void this.supervisor.stop(proc, this.config.swarm.shutdownGracePeriodMs, 'restart', true);
      },
    });
    this.server = startApiServer({
      host: this.options.host,
      port: this.options.port,
      logger,
      daemon: this.daemonApi(),
      ...(this.options.apiToken ? { token: this.options.apiToken } : {}),
    });
    this.writeRuntimeFile();
    for (const pending of this.delivery.recoverPending()) {
      if (!this.config.agents.has(pending.agent)) continue;
      logger.info(pending, 'redelivering events left unacknowledged by a previous run');
      this.supervisor.ensure('agent', pending.agent, pending.instanceKey);
    }
    this.startConnectors();
    this.pool.fill();
    this.supervisor.startReconciling();
    if (this.options.watch) this.stopWatching = watchBundle(this.config, logger, () => void this.reload());
    this.ready = true;
    logger.info(
      { swarm: swarm.name, workspaceId: swarm.workspaceId, agents: swarm.agents, api: this.apiUrl, stateRoot: this.options.stateRoot },
      'orchestrator started',
    );
  }

  submit(submission: ExternalSubmission): { eventId: string; traceId: string; reply?: Promise<ReplyOutcome> } {
    return this.router.submit(submission);
  }

  /** Graceful shutdown (SPEC.md §2.3): drain every child, SIGKILL stragglers, leave nothing behind. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.ready = false;
      this.stopWatching?.();
      this.pool?.stop();
      const grace = this.config?.swarm.shutdownGracePeriodMs ?? 30_000;
      this.options.logger.info({ gracePeriodMs: grace }, 'shutting down');
      await this.supervisor?.shutdownAll(grace);
      this.router?.pending.clear();
      this.approvals?.clear();
      this.delivery?.close();
      await this.server?.stop(true);
      if (this.runtimeFile) removeRuntimeFile(this.runtimeFile);
      this.options.logger.info('orchestrator stopped');
    })();
    return this.stopping;
  }

  // ── internals ───────────────────────────────────────────────────────────

  private configOptions() {
    return {
      bundlePath: this.options.bundlePath,
      processEnv: this.options.processEnv,
      implicitCli: this.options.interactive,
      ...(this.options.swarmName ? { swarmName: this.options.swarmName } : {}),
      ...(this.options.envFile ? { envFile: this.options.envFile } : {}),
    };
  }

  private startConnectors(): void {
    for (const connection of this.config.connections) {
      if (connection.connectorName === 'cli' && !this.options.interactive) {
        this.options.logger.info({ connection: connection.name }, 'cli connection skipped: no interactive terminal');
        continue;
      }
      this.supervisor.ensure('connector', connection.name, connection.name);
    }
  }

  /** Sends an approval to the interactive cli connector, if one is running. */
  private promptInteractive(approval: PendingApproval): boolean {
    const cli = this.supervisor
      .list()
      .find((p) => p.kind === 'connector' && p.ready && this.config.connections.some((c) => c.name === p.name && c.connectorName === 'cli'));
    if (!cli) return false;
    return cli.send({
      type: 'event',
      from: 'orchestrator',
      to: cli.name,
      payload: controlEvent(CONTROL.approvalPrompt, ORCHESTRATOR_SOURCE, approval),
    });
  }

  private onProcessExit(proc: ManagedProcess, crashed: boolean): void {
    this.approvals.dropFor(proc.key);
    const connection = proc.kind === 'connector' ? this.config.connections.find((c) => c.name === proc.name) : undefined;
    if (connection?.connectorName === 'cli' && !crashed && !proc.retired) this.options.onInteractiveEnd?.();
    if (proc.kind === 'agent' && proc.retired) {
      this.router.failRequestsTargeting(proc.key, 'AGENT_UNAVAILABLE', `agent '${proc.name}' stopped (${this.stopping ? 'the swarm is shutting down' : 'removed or deleted'}); the request stays queued for its next start`);
    }
    if (proc.kind !== 'agent' || !crashed) return;
    const dead = this.delivery.recordCrash(proc);
    if (!dead) return;
    this.metrics.deadLetters.inc({ agent: proc.name });
    this.options.logger.error({ process: proc.key, eventId: dead.id }, 'event dead-lettered after repeated crashes');
    this.router.failRequestsFor(dead, 'AGENT_CRASHED', `agent '${proc.name}' crashed repeatedly while handling this request`);
  }

  /** `--watch`: re-validate; keep running on errors; restart only what changed (SPEC.md §2.8). */
  private async reload(): Promise<void> {
    const { logger } = this.options;
    let next: SwarmConfig;
    try {
      next = await loadSwarmConfig(this.configOptions());
      checkSandbox(next);
    } catch (error) {
      if (SandboxUnavailableError.isInstance(error)) {
        logger.error({ code: error.code, suggestion: error.suggestion }, `bundle changed but ${error.message}; keeping the running configuration`);
        return;
      }
      const problems = error instanceof Error && 'problems' in error ? error.problems : undefined;
      logger.error({ problems, err: problems ? undefined : error }, 'bundle changed but is invalid; keeping the running configuration');
      return;
    }
    const previous = this.config;
    this.config = next;
    const grace = next.swarm.shutdownGracePeriodMs;
    const everything = previous.swarmFingerprint !== next.swarmFingerprint;
    const restarts: Array<Promise<void>> = [];
    for (const proc of this.supervisor.list()) {
      if (proc.kind === 'agent') {
        const removed = !next.agents.has(proc.name);
        const changed = everything || previous.agentFingerprints.get(proc.name) !== next.agentFingerprints.get(proc.name);
        if (removed) restarts.push(this.supervisor.stop(proc, grace, 'config_change', false));
        else if (changed) restarts.push(this.supervisor.stop(proc, grace, 'config_change', true));
      } else {
        const removed = !next.connectionFingerprints.has(proc.name);
        const changed = everything || previous.connectionFingerprints.get(proc.name) !== next.connectionFingerprints.get(proc.name);
        if (removed || changed) restarts.push(this.supervisor.stop(proc, grace, 'config_change', false));
      }
    }
    // Warm processes carry the old environment (env files may have changed).
    this.pool?.recycle();
    logger.info({ restarting: restarts.length, swarmChanged: everything }, 'bundle reloaded');
    await Promise.all(restarts);
    this.startConnectors();
  }

  private writeRuntimeFile(): void {
    const { swarm } = this.config;
    const file = runtimeFilePath(this.options.stateRoot, swarm.workspaceId);
    writeRuntimeFile(file, {
      pid: process.pid,
      apiUrl: this.apiUrl,
      startedAt: new Date(this.startedAt).toISOString(),
      bundlePath: resolve(this.options.bundlePath),
      swarm: swarm.name,
      workspaceId: swarm.workspaceId,
    });
    this.runtimeFile = file;
  }

  private async processRows(): Promise<ProcessRow[]> {
    const rows: ProcessRow[] = [];
    for (const proc of this.supervisor.list()) {
      const rss = await proc.rssBytes();
      rows.push({
        kind: proc.kind,
        agent: proc.kind === 'agent' ? proc.name : null,
        connection: proc.kind === 'connector' ? proc.name : null,
        instanceKey: proc.instanceKey,
        pid: proc.alive ? (proc.pid ?? null) : null,
        status: proc.status,
        crashes: proc.consecutiveCrashes,
        restarts: proc.restarts,
        rss: rss ?? null,
        startedAt: proc.startedAt ?? null,
        ...(proc.nextSpawnAllowedAt ? { nextSpawnAllowedAt: new Date(proc.nextSpawnAllowedAt).toISOString() } : {}),
      });
    }
    // Warm processes not yet assigned to an instance.
    for (const pid of this.pool?.pids() ?? []) {
      const rss = await processRssBytes(pid);
      rows.push({ kind: 'pool', agent: null, connection: null, instanceKey: '', pid, status: 'idle', crashes: 0, restarts: 0, rss: rss ?? null, startedAt: null });
    }
    return rows;
  }

  /** `instance delete`: stop the instance's processes and remove its state (messages, inbox, extension state). */
  private async deleteInstance(instanceKey: string): Promise<JsonObject> {
    const grace = this.config.swarm.shutdownGracePeriodMs;
    const procs = this.supervisor.list().filter((p) => p.kind === 'agent' && p.instanceKey === instanceKey);
    await Promise.all(procs.map((p) => this.supervisor.stop(p, grace, 'restart', false)));
    const deleted: string[] = [];
    for (const agent of this.config.swarm.agents) {
      const paths = instancePaths(this.options.stateRoot, this.config.swarm.workspaceId, agent, instanceKey);
      this.delivery.forget(agent, instanceKey);
      try {
        rmSync(paths.root, { recursive: true, force: false });
        deleted.push(paths.root);
      } catch {
        // no state for this agent under that key
      }
    }
    return { instanceKey, stopped: procs.length, deleted };
  }

  private daemonApi(): DaemonApi {
    return {
      isReady: () => this.ready,
      entryAgent: () => this.config.swarm.entryAgent,
      isKnownAgent: (name) => this.config.swarm.agents.includes(name),
      processes: () => this.processRows(),
      submit: (submission) => this.router.submit(submission),
      runtimeEvents: this.runtimeEvents,
      metricsText: async () => {
        const counts: Record<string, number> = {};
        for (const proc of this.supervisor.list()) counts[`${proc.kind}/${proc.status}`] = (counts[`${proc.kind}/${proc.status}`] ?? 0) + 1;
        const warm = this.pool?.pids().length ?? 0;
        if (warm > 0) counts['pool/idle'] = warm;
        return this.metrics.render(counts, (Date.now() - this.startedAt) / 1000);
      },
      deleteInstance: (key) => this.deleteInstance(key),
      extraRoutes: approvalRoutes(this.approvals),
    };
  }
}

/** Log file of interactive and one-shot runs (stdout then belongs to the user). */
export function daemonLogFile(stateRoot: string): string {
  return join(stateRoot, 'runtime', 'logs', 'goondan.log');
}
