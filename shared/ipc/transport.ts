/**
 * The one port between the orchestrator and its children (ARCHITECTURE §2): Bun IPC today, a
 * network bus later, both behind these three operations. Implementations validate on receipt and
 * report malformed input through `onInvalid` instead of throwing.
 */
import type { TypedIpcMessage } from './ipc-schemas.ts';

export interface Transport {
  /** Sends in order; returns false when the channel is already closed. */
  send(message: TypedIpcMessage): boolean;
  onMessage(handler: (message: TypedIpcMessage) => void): void;
  close(): void;
}

/** What a transport does with a message that failed validation (log it, drop it). */
export type InvalidMessageHandler = (problems: string[], raw: unknown) => void;
