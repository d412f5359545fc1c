/**
 * An OrchestratorCore over the in-memory launcher: a temp state root, a swarm of three agents
 * (a, b, c) with real, schema-valid plans, a silent logger that records its lines, a short crash
 * backoff and no warm pool unless asked. `coreFixtures()` registers the cleanup with afterEach.
 */
import { DEFAULT_SANDBOX } from '../../../shared/config/sandbox-plan.ts';
import { afterEach } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { type CoreConfig, OrchestratorCore } from '../../../orchestrator/daemon/orchestrator-core.ts';
import type { BackoffPolicy } from '../../../orchestrator/process/crash-backoff.ts';
import type { ManagedProcess } from '../../../orchestrator/process/managed-process.ts';
import type { ExternalSubmission } from '../../../orchestrator/routing/external-submissions.ts';
import type { ReplyOutcome } from '../../../shared/ipc/reply-events.ts';
import type { AgentPlan, SwarmPlan } from '../../../shared/types/bundle.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { testSwarmPlan } from '../../helpers/test-plans.ts';
import { eventually, settled } from './eventually.ts';
import type { ChildBehaviour, FakeChild } from './fake-child.ts';
import { MemoryLauncher } from './memory-launcher.ts';

export const AGENTS = ['a', 'b', 'c'] as const;
export const TEST_BACKOFF: BackoffPolicy = { immediateRestarts: 5, baseMs: 20, maxMs: 200 };

export interface CoreFixtureOptions {
  backoff?: BackoffPolicy;
  warmPoolSize?: number;
  startupTimeoutMs?: number;
  shutdownGracePeriodMs?: number;
  behaviour?: Partial<ChildBehaviour>;
  /** Another core over an existing state root (a daemon restart); not removed by this fixture. */
  stateRoot?: string;
  /** Instance lifecycle (passivation, live-process limit, state GC); default: TTL 5 min, no limit. */
  lifecycle?: SwarmPlan['lifecycle'];
  /** Which instances agents reach (default: scoped, nothing shared, 32 hops). */
  interAgent?: SwarmPlan['interAgent'];
  /** Approvals wait for a decision over HTTP (default: none can come, they are denied at once). */
  httpApprovals?: boolean;
}

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export class CoreFixture {
  readonly core: OrchestratorCore;
  readonly launcher: MemoryLauncher;
  readonly stateRoot: string;
  readonly swarm: SwarmPlan;
  readonly logs: LogLine[] = [];
  private readonly ownsStateRoot: boolean;
  private stopped = false;

  constructor(options: CoreFixtureOptions = {}) {
    this.ownsStateRoot = options.stateRoot === undefined;
    this.stateRoot = options.stateRoot ?? mkdtempSync(join(tmpdir(), 'goondan-core-'));
    this.swarm = {
      ...testSwarmPlan('core-test', [...AGENTS]),
      shutdownGracePeriodMs: options.shutdownGracePeriodMs ?? 1_000,
      startupTimeoutMs: options.startupTimeoutMs ?? 10_000,
      lifecycle: options.lifecycle ?? { ttlMs: 300_000 },
      ...(options.interAgent ? { interAgent: options.interAgent } : {}),
    };
    this.launcher = new MemoryLauncher(options.behaviour);
    const plans = new Map<string, AgentPlan>(AGENTS.map((name) => [name, testAgentPlan(name, this.stateRoot)]));
    const config: CoreConfig = {
      swarm: this.swarm,
      connections: [],
      spawnSpec: (kind, name, instanceKey) => {
        const plan = plans.get(name);
        if (kind !== 'agent' || !plan) throw new Error(`the core fixture has no ${kind} '${name}'`);
        return {
          launch: { command: ['fake-agent'], env: {}, stdin: 'ignore' },
          assignment: { role: 'agent', agent: name, instanceKey, stateRoot: this.stateRoot, agentPlan: plan, swarmPlan: this.swarm },
        };
      },
      agentLaunchOptions: () => ({ command: ['fake-agent'], env: {}, stdin: 'ignore', output: 'inherit' }),
      modelOf: (agent) => plans.get(agent)?.model,
      agentPlan: (agent) => plans.get(agent),
    };
    const logger = pino({ level: 'debug' }, { write: (line: string) => void this.logs.push(JSON.parse(line)) });
    this.core = new OrchestratorCore({
      config: () => config,
      stateRoot: this.stateRoot,
      launcher: this.launcher,
      logger,
      backoff: options.backoff ?? TEST_BACKOFF,
      output: 'inherit',
      warmPoolSize: options.warmPoolSize ?? 0,
      httpApprovals: options.httpApprovals ?? false,
      promptInteractive: () => false,
    });
  }

  /** An external request (HTTP / CLI) that waits for its reply. */
  ask(agent: string, input: string, extra: Partial<ExternalSubmission> = {}): Promise<ReplyOutcome> {
    const { reply } = this.core.submit({ agent, input, source: { kind: 'api', name: 'test' }, wait: true, ...extra });
    if (!reply) throw new Error('a waiting submission returned no reply promise');
    return reply;
  }

  /** An external fire-and-forget event. */
  tell(agent: string, input: string, extra: Partial<ExternalSubmission> = {}): string {
    return this.core.submit({ agent, input, source: { kind: 'api', name: 'test' }, wait: false, ...extra }).eventId;
  }

  /** Starts `agent:instanceKey` with one external event and returns its child and that event (the running turn). */
  async runningTurn(agent: string, instanceKey: string): Promise<{ child: FakeChild; turn: AgentEvent }> {
    this.tell(agent, `turn of ${agent}:${instanceKey}`, { instanceKey });
    const child = await this.launcher.waitForAssigned(agent, instanceKey);
    return { child, turn: await child.waitForWork(1) };
  }

  process(agent: string, instanceKey: string): ManagedProcess {
    const proc = this.core.supervisor.get('agent', agent, instanceKey);
    if (!proc) throw new Error(`no process ${agent}:${instanceKey}; table: ${this.core.supervisor.list().map((p) => p.key).join(', ')}`);
    return proc;
  }

  /** Resolves once the process of `agent:instanceKey` satisfies `condition`. */
  waitForProcess(agent: string, instanceKey: string, condition: (proc: ManagedProcess) => boolean, what: string): Promise<ManagedProcess> {
    return eventually(
      () => {
        const proc = this.core.supervisor.get('agent', agent, instanceKey);
        return proc && condition(proc) ? proc : undefined;
      },
      `${agent}:${instanceKey} ${what}`,
      () => {
        const proc = this.core.supervisor.get('agent', agent, instanceKey);
        return proc ? `status ${proc.status}, alive ${proc.alive}, crashes ${proc.consecutiveCrashes}, incarnation ${proc.incarnation}` : 'no such process';
      },
    );
  }

  waitForLog(predicate: (line: LogLine) => boolean, what: string): Promise<LogLine> {
    return eventually(() => this.logs.find(predicate), `log line: ${what}`, () => this.logs.slice(-8).map((l) => l.msg).join(' | '));
  }

  /** The Prometheus text of /metrics. */
  metrics(): string {
    return this.core.metrics.render(this.core.processStatusCounts(), 0, this.core.capacity());
  }

  async stop(gracePeriodMs = this.swarm.shutdownGracePeriodMs): Promise<void> {
    this.stopped = true;
    await settled(this.core.stop(gracePeriodMs), 'core.stop()');
  }

  async cleanup(): Promise<void> {
    if (!this.stopped) await this.stop(50);
    if (this.ownsStateRoot) rmSync(this.stateRoot, { recursive: true, force: true });
  }
}

/** A minimal plan that passes the plan schema (the fake child validates its assignment like a real one). */
export function testAgentPlan(name: string, bundleRoot: string): AgentPlan {
  return {
    name,
    packageName: 'core-test',
    bundleRoot,
    systemPrompt: `You are ${name}.`,
    model: { name: 'mock', provider: 'mock', model: 'mock', options: {}, capabilities: {} },
    modelParams: {},
    tools: [],
    extensions: [],
    requiredTools: [],
    maxToolResultBytes: 65_536,
    sandbox: DEFAULT_SANDBOX,
  };
}

/** Fixtures created through the returned function are stopped and removed after each test (newest first). */
export function coreFixtures(): (options?: CoreFixtureOptions) => CoreFixture {
  const created: CoreFixture[] = [];
  afterEach(async () => {
    for (const fixture of created.splice(0).reverse()) await fixture.cleanup();
  });
  return (options) => {
    const fixture = new CoreFixture(options);
    created.push(fixture);
    return fixture;
  };
}
