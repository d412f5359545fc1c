/**
 * The process port of the orchestrator core: a launched child is a process handle (pid, exit,
 * kill) plus a Transport (send, onMessage, close). Supervision, delivery, routing and the warm pool
 * depend on this port only — Bun subprocesses (bun-child.ts) in the daemon, an in-memory launcher
 * in unit tests, another transport in cluster mode.
 */
import type { Transport } from '../../shared/ipc/transport.ts';

export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
}

export interface ChildHandle {
  readonly pid: number;
  readonly alive: boolean;
  /** Resolves once, when the process has exited. */
  readonly exited: Promise<ChildExit>;
  /** Signals the child (and the process group it leads). */
  kill(signal: 'SIGKILL' | 'SIGTERM'): void;
}

export interface LaunchedChild {
  handle: ChildHandle;
  transport: Transport;
}

export interface LaunchOptions {
  command: string[];
  env: Record<string, string | undefined>;
  stdin: 'ignore' | 'inherit';
  output: 'inherit' | number;
}

export interface ChildLauncher {
  launch(options: LaunchOptions): LaunchedChild;
}
