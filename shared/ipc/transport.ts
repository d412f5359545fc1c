/**
 * The one port between the orchestrator and its children (ARCHITECTURE §2), used by BOTH sides: Bun
 * IPC today (parent: orchestrator/process/bun-child.ts, child: parent-channel-transport.ts), an
 * in-memory pair in unit tests (memory-transport.ts), a network bus later — three operations each.
 * Implementations validate on receipt and hand malformed input to their `onInvalid`, never throw.
 */
import type { TypedIpcMessage } from './ipc-schemas.ts';

export interface Transport {
  /** Sends in order; returns false when the channel is already closed. */
  send(message: TypedIpcMessage): boolean;
  /** Adds a listener for validated messages; returns the function that removes it. */
  onMessage(listener: (message: TypedIpcMessage) => void): () => void;
  close(): void;
}

/** What a transport does with a message that failed validation (log it, drop it). */
export type InvalidMessageHandler = (problems: string[], raw: unknown) => void;

/** A listener list with removal, shared by the transport implementations. */
export class Listeners<T> {
  private readonly listeners = new Set<(value: T) => void>();

  add(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  clear(): void {
    this.listeners.clear();
  }
}
