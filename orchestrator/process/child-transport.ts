/**
 * Parent side of one child's Bun IPC channel. Bun delivers child messages to the `ipc` callback
 * given at spawn time, so the spawner forwards them here; everything is validated on receipt.
 */
import type { Subprocess } from 'bun';
import { type TypedIpcMessage, validateIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { InvalidMessageHandler, Transport } from '../../shared/ipc/transport.ts';

export interface ChildTransport extends Transport {
  /** Called by the spawner's `ipc` callback with each raw message. */
  receive(raw: unknown): void;
  attach(subprocess: Subprocess): void;
}

export function createChildTransport(onInvalid: InvalidMessageHandler): ChildTransport {
  let child: Subprocess | undefined;
  let closed = false;
  const handlers: Array<(message: TypedIpcMessage) => void> = [];
  return {
    attach(subprocess) {
      child = subprocess;
    },
    receive(raw) {
      const result = validateIpcMessage(raw);
      if (!result.ok) {
        onInvalid(result.problems, raw);
        return;
      }
      for (const handler of handlers) handler(result.value);
    },
    send(message) {
      if (closed || !child || child.killed || child.exitCode !== null) return false;
      try {
        child.send(message);
        return true;
      } catch {
        // The channel closed between the check and the write (the child is exiting).
        return false;
      }
    },
    onMessage(handler) {
      handlers.push(handler);
    },
    close() {
      closed = true;
      try {
        child?.disconnect();
      } catch {
        // already disconnected
      }
    },
  };
}
