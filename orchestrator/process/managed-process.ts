/**
 * One supervised child (agent or connector): spawn with Bun IPC, status, graceful shutdown with a
 * SIGKILL deadline. Restart policy lives in the supervisor; this class only reports exits.
 */
import { CONTROL, controlEvent, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ShutdownReason } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { processRssBytes } from './process-rss.ts';
import { SpawnedChild } from './spawned-child.ts';

export type ProcessStatus = 'spawning' | 'idle' | 'processing' | 'draining' | 'terminated' | 'crashed' | 'crashLoopBackOff';

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
  /** Exit 0 is `terminated`; anything else (signal, non-zero) is a crash. */
  crashed: boolean;
}

export interface ManagedProcessOptions {
  kind: 'agent' | 'connector';
  /** Agent name or Connection name (the IPC address). */
  name: string;
  instanceKey: string;
  command: string[];
  env: Record<string, string | undefined>;
  /** Where the child's stdout/stderr go: inherited or a file descriptor (interactive mode). */
  output: 'inherit' | number;
  stdin: 'ignore' | 'inherit';
  /** What a warm pool process needs to become this instance (agents only). */
  assignment?: JsonObject;
  /** Takes a warm pool process, if one is ready. */
  takeWarm?(): SpawnedChild | undefined;
  logger: RootLogger;
  onMessage(message: TypedIpcMessage, process: ManagedProcess): void;
  onExit(process: ManagedProcess, exit: ProcessExit): void;
}

/** Table key: `agent:instanceKey` for agents, `@connection/<name>` for connectors (never collide). */
export function processKey(kind: 'agent' | 'connector', name: string, instanceKey: string): string {
  return kind === 'agent' ? `${name}:${instanceKey}` : `@connection/${name}`;
}

export class ManagedProcess {
  readonly key: string;
  status: ProcessStatus = 'spawning';
  ready = false;
  pid: number | undefined;
  /** Increments on every spawn so stale replies to an older incarnation can be recognised. */
  incarnation = 0;
  consecutiveCrashes = 0;
  restarts = 0;
  startedAt: string | undefined;
  nextSpawnAllowedAt: number | undefined;
  /** Set when the orchestrator wants this process to stay down (shutdown, removed from config). */
  retired = false;
  private child: SpawnedChild | undefined;
  private shutdownAcked = false;

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
    return this.child?.alive === true;
  }

  /** Spawns the child, or adopts a warm one from the pool when the spawn spec allows it. */
  start(): void {
    if (this.alive) return;
    const { logger } = this.options;
    this.incarnation += 1;
    this.ready = false;
    this.shutdownAcked = false;
    this.status = 'spawning';
    const incarnation = this.incarnation;
    const warm = this.options.assignment ? this.options.takeWarm?.() : undefined;
    const child = warm ?? new SpawnedChild(this.options);
    child.onInvalid((problems, raw) => logger.warn({ process: this.key, problems, raw: preview(raw) }, 'dropped malformed IPC message from child'));
    child.onMessage((message) => {
      if (message.type === 'shutdown_ack') this.shutdownAcked = true;
      this.options.onMessage(message, this);
    });
    child.onExit(({ exitCode, signal }) => {
      if (incarnation !== this.incarnation) return;
      const crashed = !(exitCode === 0 && signal === null);
      this.ready = false;
      this.status = crashed ? 'crashed' : 'terminated';
      this.options.onExit(this, { exitCode, signal, crashed });
    });
    this.child = child;
    this.pid = child.pid;
    this.startedAt = new Date().toISOString();
    if (warm && this.options.assignment) {
      child.send({
        type: 'event',
        from: 'orchestrator',
        to: this.name,
        payload: controlEvent(CONTROL.poolAssign, ORCHESTRATOR_SOURCE, this.options.assignment),
      });
    }
  }

  send(message: TypedIpcMessage): boolean {
    return this.child?.send(message) ?? false;
  }

  /**
   * SPEC.md §2.3: send `shutdown`, let the child drain and ack, SIGKILL after the grace period.
   * Resolves once the process has exited.
   */
  async shutdown(gracePeriodMs: number, reason: ShutdownReason): Promise<void> {
    if (!this.alive) return;
    this.status = 'draining';
    const sent = this.send({ type: 'shutdown', from: 'orchestrator', to: this.name, payload: { gracePeriodMs, reason } });
    if (!sent) this.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.alive) return;
      this.options.logger.warn({ process: this.key, childPid: this.pid, gracePeriodMs, acked: this.shutdownAcked }, 'grace period over: SIGKILL');
      this.kill();
    }, gracePeriodMs);
    await this.child?.exited;
    clearTimeout(timer);
  }

  kill(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): void {
    this.child?.kill(signal);
  }

  async waitForExit(): Promise<void> {
    await this.child?.exited;
  }

  /** Resident set size in bytes; undefined when not running. */
  async rssBytes(): Promise<number | undefined> {
    return this.alive && this.pid !== undefined ? processRssBytes(this.pid) : undefined;
  }

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
