/**
 * Child side of the Bun IPC channel (`process.send` / `process.on('message')`), used by agent and
 * connector processes. When the parent goes away the channel disconnects and `onDisconnect` runs.
 */
import { type TypedIpcMessage, validateIpcMessage } from './ipc-schemas.ts';
import { type InvalidMessageHandler, Listeners, type Transport } from './transport.ts';

export interface ParentChannelTransport extends Transport {
  onDisconnect(handler: () => void): void;
}

export function createParentChannelTransport(onInvalid: InvalidMessageHandler): ParentChannelTransport {
  const send = process.send?.bind(process);
  if (!send) throw new Error('no IPC channel: this process must be started by the goondan orchestrator');
  let closed = false;
  const listeners = new Listeners<TypedIpcMessage>();
  process.on('message', (raw: unknown) => {
    const result = validateIpcMessage(raw);
    if (result.ok) listeners.emit(result.value);
    else onInvalid(result.problems, raw);
  });
  process.on('disconnect', () => {
    closed = true;
  });
  return {
    send(message) {
      if (closed || !process.connected) return false;
      send(message);
      return true;
    },
    onMessage: (listener) => listeners.add(listener),
    onDisconnect(handler) {
      process.on('disconnect', handler);
    },
    close() {
      closed = true;
      process.disconnect?.();
    },
  };
}
