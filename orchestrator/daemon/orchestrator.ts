/**
 * The daemon's composition root: config, the orchestrator core over Bun subprocesses, the HTTP
 * API, connectors, `--watch`, the runtime file, and graceful shutdown. It stays up with zero agents
 * and spawns them on demand (SPEC.md §2.1).
 */
import { join, resolve } from 'node:path';
import type { Server } from 'bun';
import { GoondanError } from '../../shared/errors/index.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { controlEvent } from '../../shared/ipc/control-protocol.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ConnectionPlan } from '../../shared/types/bundle.ts';
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import { runtimeFilePath } from '../../shared/state-paths.ts';
import type { PendingApproval } from '../approvals/approval-broker.ts';
import { approvalRoutes } from '../approvals/approval-routes.ts';
import { migrateInstanceDirs } from '../delivery/migrate-instance-dirs.ts';
import { ApiCredentials, ensureApiToken } from '../http/api-credential.ts';
import { type DaemonApi, startApiServer } from '../http/api-server.ts';
import { inspectRoutes } from '../inspect/inspect-routes.ts';
import { studioRoutes } from '../studio/studio-routes.ts';
import { StudioSessions } from '../studio/studio-sessions.ts';
import { prepareAgentEntry } from '../process/agent-bundle.ts';
import { prepareValidatorBytecode } from '../process/validator-bytecode.ts';
import { chooseBaseModuleBuilds, prepareBaseModuleBuilds } from '../process/base-module-builds.ts';
import { prepareAgentEngineOptions } from '../process/agent-engine-options.ts';
import { bunChildLauncher } from '../process/bun-child.ts';
import { backoffPolicyFromEnv } from '../process/crash-backoff.ts';
import type { ManagedProcess, ProcessExit } from '../process/managed-process.ts';
import type { ExternalSubmission, Submitted } from '../routing/external-submissions.ts';
import type { ExchangeNote } from '../routing/router.ts';
import { usageRoutes } from '../usage/usage-routes.ts';
import { watchBundle } from '../watch/bundle-watcher.ts';
import { type RequestSpans, startRequestSpans } from '../telemetry/request-spans.ts';
import { applyConfigChange } from './config-change.ts';
import { type CoreConfig, OrchestratorCore } from './orchestrator-core.ts';
import type { ClusterOptions } from '../cluster/cluster-options.ts';
import type { ClusterNode } from '../cluster/cluster-node.ts';
import { clusterMetricsText } from '../cluster/cluster-metrics.ts';
import { isProcessAlive } from '../../shared/process-alive.ts';
import { readRuntimeFile, removeRuntimeFile, writeRuntimeFile } from './runtime-file.ts';
import { checkSandbox, SandboxUnavailableError } from './sandbox-check.ts';
import { agentLaunchOptions, agentSpawnSpec, connectorSpawnSpec } from './spawn-specs.ts';
import { loadSwarmConfig, type SwarmConfig } from './swarm-config.ts';
import { within } from '../../shared/within.ts';

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
  /** Cluster mode on NATS JetStream (issue 15); absent: the embedded single-node daemon. */
  cluster?: ClusterOptions;
}

/**
 * Warm agent processes kept ready at least; the pool grows with demand (GOONDAN_WARM_POOL overrides;
 * 0 turns it off). Two when the swarm has several agents: the first exchange of a conversation
 * between two of them starts two new instances at once (B a few ms after A, from A's first tool
 * call), and a spare takes ~40 ms to boot. Measured on the e2e swarm, a new pair's first A→B→A:
 * 39–49 ms with one spare, 6–7 ms with two.
 */
export function defaultWarmPoolSize(agentCount: number): number {
  return agentCount > 1 ? 2 : 1;
}

export class AlreadyRunningError extends Error {
  override name = 'AlreadyRunningError';
}

export class Orchestrator {
  private config!: SwarmConfig;
  private core!: OrchestratorCore;
  private server: Server<undefined> | undefined;
  private stopWatching: (() => void) | undefined;
  private readonly startedAt = Date.now();
  private ready = false;
  private stopping: Promise<void> | undefined;
  /** The validators’ bytecode build, running in the background after start (validator-bytecode.ts). */
  private validatorBytecode: Promise<void> | undefined;
  private runtimeFile: string | undefined;
  private requestSpans: RequestSpans | undefined;
  private readonly studioSessions = new StudioSessions();
  private credentials!: ApiCredentials;
  private cluster: ClusterNode | undefined;

  constructor(private readonly options: OrchestratorOptions) {}

  get apiUrl(): string {
    if (!this.server) return '';
    // An IPv6 host is bracketed once, whether it was given as ::1 or as [::1].
    const bare = this.server.hostname?.replace(/^\[(.*)\]$/, '$1');
    const host = bare?.includes(':') ? `[${bare}]` : bare;
    return `http://${host}:${this.server.port}`;
  }

  get swarm() {
    return this.config.swarm;
  }

  get runtimeEvents() {
    return this.core.runtimeEvents;
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
    // State directories of older versions get their injective names before anything reads them.
    migrateInstanceDirs(this.options.stateRoot, swarm.workspaceId, logger);
    this.requestSpans = await startRequestSpans(this.options.processEnv, swarm.name, (problem) => logger.warn({ code: 'W_OTEL_PROTOCOL' }, problem));
    // From the swarm as it starts: a reload that adds or removes agents keeps the pool's minimum.
    const defaultPoolSize = defaultWarmPoolSize(this.config.agents.size);
    const poolSize = Number(this.options.processEnv.GOONDAN_WARM_POOL ?? defaultPoolSize);
    if (this.options.cluster) {
      // Loaded only in cluster mode: a single-node daemon never pays for the NATS clients.
      const { ClusterNode } = await import('../cluster/cluster-node.ts');
      this.cluster = await ClusterNode.open(
        this.options.cluster,
        { workspaceId: swarm.workspaceId, stateRoot: this.options.stateRoot, logger, apiUrl: () => this.apiUrl, gracePeriodMs: () => this.config.swarm.shutdownGracePeriodMs },
        () => this.core.metrics.malformedMessages.inc({ source: 'cluster' }),
      );
    }
    this.core = new OrchestratorCore({
      config: () => this.coreConfig(),
      stateRoot: this.options.stateRoot,
      launcher: bunChildLauncher((pid, problems, raw) => {
        this.core.metrics.malformedMessages.inc({ source: 'ipc' });
        const proc = this.core.supervisor.list().find((p) => p.pid === pid && p.alive);
        logger.warn({ process: proc?.key ?? 'pool', childPid: pid, problems, raw: preview(raw) }, 'dropped malformed IPC message from child');
      }),
      logger,
      backoff: backoffPolicyFromEnv(this.options.processEnv),
      output: this.options.childOutput,
      warmPoolSize: Number.isInteger(poolSize) && poolSize >= 0 ? poolSize : defaultPoolSize,
      httpApprovals: this.options.processEnv.GOONDAN_APPROVALS === 'http',
      promptInteractive: (approval) => this.promptInteractive(approval),
      ...(this.options.onExchange ? { onExchange: this.options.onExchange } : {}),
      ...(this.requestSpans ? { requestSpans: this.requestSpans } : {}),
      onProcessExit: (proc, exit) => this.onProcessExit(proc, exit),
      ...(this.cluster ? { cluster: this.cluster.coreHooks() } : {}),
    });
    this.credentials = new ApiCredentials([ensureApiToken(this.options.stateRoot), this.options.apiToken], this.studioSessions);
    this.server = startApiServer({
      host: this.options.host,
      port: this.options.port,
      logger,
      daemon: this.daemonApi(),
      credentials: this.credentials,
      ...(this.options.apiToken ? { envToken: this.options.apiToken } : {}),
    });
    this.writeRuntimeFile();
    // Before any agent starts: built once per change of the sources (~40 ms), then cached.
    await prepareAgentEntry(this.options.processEnv, logger);
    chooseBaseModuleBuilds(this.options.processEnv);
    prepareAgentEngineOptions(this.options.processEnv, logger);
    this.core.start((name) => this.config.agents.has(name));
    await this.cluster?.start(this.core, () => this.core.processRows());
    this.startConnectors((connection) => connection.connectorName !== 'cli');
    if (this.options.watch) this.stopWatching = watchBundle(this.config, logger, () => void this.reload());
    // Ready once a spare has booted: the first new instance is served warm, not raced against it.
    await this.primedPool(swarm.startupTimeoutMs);
    this.ready = true;
    logger.info(
      { swarm: swarm.name, workspaceId: swarm.workspaceId, agents: swarm.agents, api: this.apiUrl, stateRoot: this.options.stateRoot },
      'orchestrator started',
    );
    // The terminal's prompt comes after the banner `goondan run` prints once this resolves: before
    // it, the banner landed after the prompt, or in the middle of a first reply typed at once.
    this.startConnectors((connection) => connection.connectorName === 'cli');
    // In the background, once the first spare has made the agents' validators (on a fresh install).
    this.validatorBytecode = prepareValidatorBytecode(logger, () => this.stopping !== undefined).then(() => (this.stopping ? undefined : prepareBaseModuleBuilds(logger)));
  }

  /** The warm pool's first spare, or the start-up timeout (a pool that cannot boot does not block readiness). */
  private async primedPool(timeoutMs: number): Promise<void> {
    await within(this.core.pool.spareReady(), timeoutMs, () => undefined);
  }

  submit(submission: ExternalSubmission): Submitted {
    this.refuseWhileStopping();
    return this.core.submit(submission);
  }

  /**
   * From the first moment of a shutdown nothing new is accepted: an event accepted while the daemon
   * drains could be cut off from its caller (the server closes), who would not know it was kept.
   */
  private refuseWhileStopping(): void {
    if (this.stopping === undefined) return;
    throw new GoondanError('DAEMON_STOPPING', 'system', 'the daemon is shutting down: the event was not accepted', {
      suggestion: 'send it again once the daemon runs again (with the same Idempotency-Key, if it had one), or to another node of the cluster',
    });
  }

  /** Graceful shutdown (SPEC.md §2.3): answer every waiter, drain every child, leave nothing behind. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.ready = false;
      this.stopWatching?.();
      const grace = this.config?.swarm.shutdownGracePeriodMs ?? 30_000;
      this.options.logger.info({ gracePeriodMs: grace }, 'shutting down');
      // A cluster node hands its partitions over first: their callers get answers from the new owners.
      await this.cluster?.drain().catch((error: unknown) => this.options.logger.warn({ err: error }, 'cluster drain failed; leases expire instead'));
      await this.core?.stop(grace);
      await this.cluster?.close();
      await this.requestSpans?.shutdown().catch((error: unknown) => this.options.logger.warn({ err: error }, 'exporting the last spans failed'));
      await this.server?.stop(true);
      await this.validatorBytecode;
      if (this.runtimeFile) removeRuntimeFile(this.runtimeFile);
      this.options.logger.info('orchestrator stopped');
    })();
    return this.stopping;
  }

  // ── internals ───────────────────────────────────────────────────────────

  private coreConfig(): CoreConfig {
    const config = this.config;
    return {
      swarm: config.swarm,
      connections: config.connections,
      spawnSpec: (kind, name, instanceKey) =>
        kind === 'agent' ? agentSpawnSpec(config, { ...this.options, replicateState: this.cluster !== undefined }, name, instanceKey) : connectorSpawnSpec(config, this.options, name),
      agentLaunchOptions: () => agentLaunchOptions(config, this.options.childOutput),
      modelOf: (agent) => config.agents.get(agent)?.model,
      agentPlan: (agent) => config.agents.get(agent),
    };
  }

  private configOptions() {
    return {
      bundlePath: this.options.bundlePath,
      processEnv: this.options.processEnv,
      implicitCli: this.options.interactive,
      ...(this.options.swarmName ? { swarmName: this.options.swarmName } : {}),
      ...(this.options.envFile ? { envFile: this.options.envFile } : {}),
    };
  }

  /** Starts the connections `which` selects (ensure: one that runs already is left alone). */
  private startConnectors(which: (connection: ConnectionPlan) => boolean = () => true): void {
    for (const connection of this.config.connections) {
      if (!which(connection)) continue;
      if (connection.connectorName === 'cli' && !this.options.interactive) {
        this.options.logger.info({ connection: connection.name }, 'cli connection skipped: no interactive terminal');
        continue;
      }
      this.core.supervisor.ensure('connector', connection.name, connection.name);
    }
  }

  /** Sends an approval to the interactive cli connector, if one is running. */
  private promptInteractive(approval: PendingApproval): boolean {
    const cli = this.core.supervisor
      .list()
      .find((p) => p.kind === 'connector' && p.ready && this.config.connections.some((c) => c.name === p.name && c.connectorName === 'cli'));
    if (!cli) return false;
    return cli.send({ type: 'event', from: ORCHESTRATOR, to: cli.name, payload: controlEvent('runtime.approval.prompt', ORCHESTRATOR_SOURCE, approval) });
  }

  private onProcessExit(proc: ManagedProcess, exit: ProcessExit): void {
    const connection = proc.kind === 'connector' ? this.config.connections.find((c) => c.name === proc.name) : undefined;
    if (connection?.connectorName === 'cli' && !exit.crashed && !proc.retired) this.options.onInteractiveEnd?.();
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
    await applyConfigChange(this.core, previous, next, logger);
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

  private daemonApi(): DaemonApi {
    const countMalformed = () => this.core.metrics.malformedMessages.inc({ source: 'http' });
    return {
      // A cluster node that lost NATS cannot accept work: load balancers should send it elsewhere.
      isReady: () => this.ready && (this.cluster?.connected() ?? true),
      notReadyBecause: () => (this.stopping !== undefined ? 'stopping' : this.ready && this.cluster?.connected() === false ? 'cluster-disconnected' : 'starting'),
      entryAgent: () => this.config.swarm.entryAgent,
      isKnownAgent: (name) => this.config.swarm.agents.includes(name),
      agents: () => this.config.swarm.agents,
      processes: () => (this.cluster ? this.cluster.processRows(() => this.core.processRows()) : this.core.processRows()),
      submit: (submission) => {
        this.refuseWhileStopping();
        return this.cluster ? this.cluster.submit(submission, this.core) : this.core.submit(submission);
      },
      // Cluster mode: another node may hold it (the one that accepted the event).
      eventRecord: (eventId) => this.core.ledger.get(eventId) ?? this.cluster?.findEvent(eventId),
      runtimeEvents: this.core.runtimeEvents,
      metricsText: async () =>
        this.core.metrics.render(this.core.processStatusCounts(), (Date.now() - this.startedAt) / 1000, this.core.capacity(), this.core.modelCalls.ledger.instances()) +
        (this.cluster ? clusterMetricsText(this.cluster) : ''),
      deleteInstance: (key) => this.deleteInstance(key, this.config.swarm.agents),
      restartInstance: (key, options) => this.restartInstance(key, options),
      countMalformedBody: countMalformed,
      extraRoutes: [
        ...approvalRoutes(this.core.approvals, countMalformed, this.cluster?.approvals),
        ...usageRoutes(this.core.modelCalls.ledger),
        ...inspectRoutes({ stateRoot: this.options.stateRoot, swarm: () => this.config.swarm, connections: () => this.config.connections, ...(this.cluster ? { cluster: this.cluster.inspect } : {}) }),
        ...studioRoutes({ sessions: this.studioSessions, acceptsToken: (token) => this.credentials.acceptsToken(token), onMalformedBody: countMalformed }),
      ],
    };
  }

  /**
   * `goondan restart` / `POST /v1/restart` / `POST /v1/instances/{key}/restart`: matching agent
   * processes drain, then start again with the current bundle. `fresh` deletes their instances'
   * state instead (they start afresh on their next event).
   */
  /**
   * An instance's processes stopped and its state deleted: on every node of a cluster. `keepQueued`
   * (restart --fresh) holds on a single node only: a cluster gives the queued events up (they wait
   * in other nodes' inboxes and JetStream, which a deletion cannot keep in step).
   */
  private deleteInstance(instanceKey: string, agents: readonly string[], options: { keepQueued?: boolean } = {}): Promise<JsonObject> {
    return this.cluster ? this.cluster.deleteInstance(instanceKey, agents) : this.core.deleteInstance(instanceKey, agents, options);
  }

  private async restartInstance(instanceKey: string | undefined, options: { agent?: string; fresh: boolean }): Promise<JsonObject> {
    const matches = (p: ManagedProcess) =>
      p.kind === 'agent' && (instanceKey === undefined || p.instanceKey === instanceKey) && (options.agent === undefined || p.name === options.agent);
    // A restart follows a fix: warm spares imported the tool modules (or their import error) before it.
    this.core.pool.recycle();
    if (!options.fresh) return { instanceKey: instanceKey ?? null, restarted: await this.core.restart(matches, 'restart'), fresh: false };
    const agents = options.agent ? [options.agent] : this.config.swarm.agents;
    const keys = instanceKey !== undefined ? [instanceKey] : [...new Set(this.core.supervisor.list().filter(matches).map((p) => p.instanceKey))];
    let stopped = 0;
    const deleted: JsonValue[] = [];
    const discarded: JsonValue[] = [];
    for (const key of keys) {
      const removed = await this.deleteInstance(key, agents, { keepQueued: true });
      stopped += Number(removed.stopped ?? 0);
      if (Array.isArray(removed.deleted)) deleted.push(...removed.deleted);
      if (Array.isArray(removed.discarded)) discarded.push(...removed.discarded);
    }
    return { instanceKey: instanceKey ?? null, restarted: 0, fresh: true, stopped, deleted, discarded };
  }
}

/** Log file of interactive and one-shot runs (stdout then belongs to the user). */
export function daemonLogFile(stateRoot: string): string {
  return join(stateRoot, 'runtime', 'logs', 'goondan.log');
}

function preview(raw: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(raw) ?? String(raw);
  } catch {
    text = String(raw);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
