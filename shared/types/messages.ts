/**
 * Event-sourced conversation state (SPEC.md §3.1): `nextMessages = base + Σ events`.
 */
import type { ModelMessage } from 'ai';
import type { JsonValue } from './json.ts';

export type MessageSource =
  | { type: 'user' }
  | { type: 'assistant'; stepId: string }
  | { type: 'tool'; toolCallId: string; toolName: string }
  | { type: 'system' }
  | { type: 'extension'; extensionName: string };

/** A model message with a stable id. `metadata.pinned` protects it from compaction. */
export interface Message {
  id: string;
  data: ModelMessage;
  metadata: Record<string, JsonValue>;
  /** ISO-8601 timestamp. */
  createdAt: string;
  source: MessageSource;
}

export type MessageEvent =
  | { type: 'append'; message: Message }
  | { type: 'replace'; targetId: string; message: Message }
  | { type: 'remove'; targetId: string }
  | { type: 'truncate' };

export interface ConversationState {
  readonly baseMessages: readonly Message[];
  readonly events: readonly MessageEvent[];
  /** base with every event applied, in order (a copy of the history, made on the first read after a change). */
  readonly nextMessages: readonly Message[];
  /** `nextMessages.length`, without the copy. */
  readonly messageCount: number;
  /** `nextMessages.at(index)` (negative counts from the end), without the copy. */
  messageAt(index: number): Message | undefined;
  /** The system messages of nextMessages, in order, from an index kept with every edit: the history is not scanned. */
  systemMessages(): Message[];
  /** What the model receives: `nextMessages.map(m => m.data)`. */
  toLlmMessages(): ModelMessage[];
}
