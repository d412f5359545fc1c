/**
 * The ChildLauncher of the daemon: a Bun subprocess with its IPC channel (the parent side of the
 * Transport port). Every message is validated on receipt; malformed ones are counted and logged
 * with the child's pid, never delivered.
 */
import type { Subprocess } from 'bun';
import { type TypedIpcMessage, validateIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { Listeners } from '../../shared/ipc/transport.ts';
import type { ChildExit, ChildHandle, ChildLauncher, LaunchedChild, LaunchOptions } from './child-launcher.ts';

/** `onInvalid` receives the pid of the child that sent a malformed message. */
export function bunChildLauncher(onInvalid: (pid: number, problems: string[], raw: unknown) => void): ChildLauncher {
  return { launch: (options) => launchBunChild(options, onInvalid) };
}

function launchBunChild(options: LaunchOptions, onInvalid: (pid: number, problems: string[], raw: unknown) => void): LaunchedChild {
  const listeners = new Listeners<TypedIpcMessage>();
  let closed = false;
  let resolveExit: (exit: ChildExit) => void = () => {};
  const exited = new Promise<ChildExit>((resolve) => {
    resolveExit = resolve;
  });
  const subprocess: Subprocess = Bun.spawn(options.command, {
    env: options.env,
    stdin: options.stdin,
    stdout: options.output,
    stderr: options.output,
    serialization: 'json',
    // Own session: a terminal's Ctrl-C reaches only the orchestrator, which drains children itself.
    detached: true,
    ipc: (raw) => {
      const result = validateIpcMessage(raw);
      if (result.ok) listeners.emit(result.value);
      // IPC callbacks run after Bun.spawn has returned, so `subprocess` is set here.
      else onInvalid(subprocess.pid, result.problems, raw);
    },
    onExit: (_proc, exitCode, signalCode) => {
      resolveExit({ exitCode, signal: signalCode === null || signalCode === undefined ? null : String(signalCode) });
    },
  });
  const alive = () => subprocess.exitCode === null && subprocess.signalCode === null;
  const handle: ChildHandle = {
    pid: subprocess.pid,
    get alive() {
      return alive();
    },
    exited,
    kill(signal) {
      if (!alive()) return;
      try {
        // The child leads its own process group: tools it started die with it.
        process.kill(-subprocess.pid, signal);
      } catch {
        subprocess.kill(signal);
      }
    },
  };
  return {
    handle,
    transport: {
      send(message) {
        if (closed || !alive()) return false;
        try {
          subprocess.send(message);
          return true;
        } catch {
          // The channel closed between the check and the write (the child is exiting).
          return false;
        }
      },
      onMessage: (listener) => listeners.add(listener),
      close() {
        closed = true;
        try {
          subprocess.disconnect();
        } catch {
          // already disconnected
        }
      },
    },
  };
}
