/**
 * An in-memory Transport pair: what one end sends, the other receives — asynchronously, in order,
 * after a JSON round trip and the same receipt validation as Bun IPC. Lets the orchestrator core
 * be unit-tested without spawning anything (ARCHITECTURE §2: one port, several implementations).
 */
import { type TypedIpcMessage, validateIpcMessage } from './ipc-schemas.ts';
import { type InvalidMessageHandler, Listeners, type Transport } from './transport.ts';

export interface MemoryEnd extends Transport {
  readonly closed: boolean;
  /** Sends a raw value as-is (tests of malformed input). */
  sendRaw(raw: unknown): void;
}

export function createMemoryTransportPair(onInvalid: { a?: InvalidMessageHandler; b?: InvalidMessageHandler } = {}): { a: MemoryEnd; b: MemoryEnd } {
  const inboxA = new Listeners<TypedIpcMessage>();
  const inboxB = new Listeners<TypedIpcMessage>();
  let closed = false;
  const deliver = (raw: unknown, to: Listeners<TypedIpcMessage>, invalid: InvalidMessageHandler | undefined) => {
    // A microtask per message keeps order and never re-enters the sender, like a real channel.
    queueMicrotask(() => {
      if (closed) return;
      const result = validateIpcMessage(raw);
      if (result.ok) to.emit(result.value);
      else invalid?.(result.problems, raw);
    });
  };
  const end = (peer: Listeners<TypedIpcMessage>, own: Listeners<TypedIpcMessage>, peerInvalid: InvalidMessageHandler | undefined): MemoryEnd => ({
    get closed() {
      return closed;
    },
    send(message) {
      if (closed) return false;
      deliver(JSON.parse(JSON.stringify(message)), peer, peerInvalid);
      return true;
    },
    sendRaw(raw) {
      if (!closed) deliver(raw, peer, peerInvalid);
    },
    onMessage: (listener) => own.add(listener),
    close() {
      closed = true;
    },
  });
  return { a: end(inboxB, inboxA, onInvalid.b), b: end(inboxA, inboxB, onInvalid.a) };
}
