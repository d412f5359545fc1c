/**
 * One Bun child with its IPC channel (the parent side of the Transport port). Bun binds the `ipc`
 * and `onExit` callbacks at spawn time, so they dispatch to handlers that can be re-bound: a warm
 * pool process changes owner when it is assigned to an agent instance. Every message is validated
 * on receipt; malformed ones go to `onInvalid`, never to the handler.
 */
import type { Subprocess } from 'bun';
import { type TypedIpcMessage, validateIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { InvalidMessageHandler, Transport } from '../../shared/ipc/transport.ts';

export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
}

export interface SpawnChildOptions {
  command: string[];
  env: Record<string, string | undefined>;
  stdin: 'ignore' | 'inherit';
  output: 'inherit' | number;
}

export class SpawnedChild implements Transport {
  private messageHandler: (message: TypedIpcMessage) => void = () => {};
  private invalidHandler: InvalidMessageHandler = () => {};
  private exitHandler: (exit: ChildExit) => void = () => {};
  private closed = false;
  readonly subprocess: Subprocess;
  readonly exited: Promise<void>;

  constructor(options: SpawnChildOptions) {
    this.subprocess = Bun.spawn(options.command, {
      env: options.env,
      stdin: options.stdin,
      stdout: options.output,
      stderr: options.output,
      serialization: 'json',
      // Own session: a terminal's Ctrl-C reaches only the orchestrator, which drains children itself.
      detached: true,
      ipc: (raw) => {
        const result = validateIpcMessage(raw);
        if (result.ok) this.messageHandler(result.value);
        else this.invalidHandler(result.problems, raw);
      },
      onExit: (_proc, exitCode, signalCode) => {
        this.exitHandler({ exitCode, signal: signalCode === null || signalCode === undefined ? null : String(signalCode) });
      },
    });
    this.exited = this.subprocess.exited.then(() => undefined);
  }

  get pid(): number {
    return this.subprocess.pid;
  }

  get alive(): boolean {
    return this.subprocess.exitCode === null && this.subprocess.signalCode === null;
  }

  /** Replaces the message handler (Transport port: one owner at a time). */
  onMessage(handler: (message: TypedIpcMessage) => void): void {
    this.messageHandler = handler;
  }

  onInvalid(handler: InvalidMessageHandler): void {
    this.invalidHandler = handler;
  }

  onExit(handler: (exit: ChildExit) => void): void {
    this.exitHandler = handler;
  }

  send(message: TypedIpcMessage): boolean {
    if (this.closed || !this.alive) return false;
    try {
      this.subprocess.send(message);
      return true;
    } catch {
      // The channel closed between the check and the write (the child is exiting).
      return false;
    }
  }

  close(): void {
    this.closed = true;
    try {
      this.subprocess.disconnect();
    } catch {
      // already disconnected
    }
  }

  /** Signals the child's whole process group (it leads one), so tools it started die with it. */
  kill(signal: 'SIGKILL' | 'SIGTERM'): void {
    if (!this.alive) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      this.subprocess.kill(signal);
    }
  }
}
