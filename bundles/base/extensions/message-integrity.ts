/**
 * message-integrity (SPEC.md §5.4): what removing messages must respect, shared by message-window
 * and message-compaction. An assistant message with tool calls and the tool messages answering it
 * form one unit that is kept or removed as a whole (every provider rejects a tool call without its
 * result, or a result without its call); a tool result whose call is gone is an orphan and goes.
 * Pinned messages, the context-message system message and the current turn's input are never
 * removed, and neither is anything in their unit.
 */
import type { ModelMessage } from 'ai';
import type { Message } from '../../../shared/types/messages.ts';
import { CONTEXT_MESSAGE_MARKER } from './context-message/index.ts';

/** Ids of the tool calls an assistant message makes ([] for every other message). */
export function toolCallIdsOf(data: ModelMessage): string[] {
  if (data.role !== 'assistant' || typeof data.content === 'string') return [];
  return data.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
}

/** Ids of the tool calls a tool message answers ([] for every other message). */
export function toolResultIdsOf(data: ModelMessage): string[] {
  if (data.role !== 'tool') return [];
  return data.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []));
}

/** Messages that are kept or removed together, as indices into the conversation, oldest first. */
export interface MessageUnit {
  indices: number[];
  /** A tool message whose calls no earlier assistant message makes. */
  orphan: boolean;
}

/**
 * Splits a conversation into units: each assistant message with the tool messages that answer it,
 * every other message alone. A result belongs to the NEAREST earlier assistant message making that
 * call id, so an id reused later in the conversation (some models count calls) pairs correctly.
 */
export function messageUnits(messages: readonly Message[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  const callerUnit = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.data.role === 'assistant') {
      const unit = units.push({ indices: [index], orphan: false }) - 1;
      for (const id of toolCallIdsOf(message.data)) callerUnit.set(id, unit);
      return;
    }
    const resultIds = toolResultIdsOf(message.data);
    if (resultIds.length === 0) {
      units.push({ indices: [index], orphan: false });
      return;
    }
    let owner: number | undefined;
    for (const id of resultIds) {
      const unit = callerUnit.get(id);
      if (unit !== undefined && (owner === undefined || unit > owner)) owner = unit;
    }
    const ownerUnit = owner === undefined ? undefined : units[owner];
    if (ownerUnit) ownerUnit.indices.push(index);
    else units.push({ indices: [index], orphan: true });
  });
  return units;
}

export function isPinned(message: Message): boolean {
  return message.metadata.pinned === true;
}

/** The system message of the context-message extension (also pinned, but recognised by its marker). */
export function isContextMessage(message: Message): boolean {
  return message.data.role === 'system' && message.metadata[CONTEXT_MESSAGE_MARKER] !== undefined;
}

/** The user message the engine appended for the event that started the turn (`metadata.eventId`). */
export function isTurnInput(message: Message, inputEventId: string): boolean {
  return message.source.type === 'user' && message.metadata.eventId === inputEventId;
}

/** Never removed by windowing or compaction: pinned, the system prompt, the current turn's input. */
export function isProtected(message: Message, inputEventId: string): boolean {
  return isPinned(message) || isContextMessage(message) || isTurnInput(message, inputEventId);
}

export interface RemovalSelection {
  /** Whether a message must stay; its whole unit then stays. */
  keep: (message: Message, index: number) => boolean;
  /**
   * Asked before each further removable unit is taken, with the ids selected so far and how many units
   * (orphans not counted) were taken: true stops.
   */
  enough: (removed: ReadonlySet<string>, unitsTaken: number) => boolean;
  /** Told about each unit (or orphan) as it is taken, so a caller can keep running totals. */
  taken?: (messages: readonly Message[]) => void;
}

/**
 * Ids to remove: every unpinned orphan tool result (it would make the request invalid anyway),
 * then whole units, oldest first, skipping kept ones, until `enough` says so.
 */
export function selectRemovals(messages: readonly Message[], selection: RemovalSelection): Set<string> {
  const units = messageUnits(messages);
  const removed = new Set<string>();
  const kept = (unit: MessageUnit): boolean =>
    unit.indices.some((index) => {
      const message = messages[index];
      return message !== undefined && selection.keep(message, index);
    });
  const take = (unit: MessageUnit): void => {
    const taken: Message[] = [];
    for (const index of unit.indices) {
      const message = messages[index];
      if (message === undefined) continue;
      removed.add(message.id);
      taken.push(message);
    }
    selection.taken?.(taken);
  };
  // An orphan makes the request invalid wherever it sits; only an explicit pin keeps it.
  for (const unit of units) {
    if (unit.orphan && !unit.indices.some((index) => messages[index]?.metadata.pinned === true)) take(unit);
  }
  let unitsTaken = 0;
  for (const unit of units) {
    if (unit.orphan || kept(unit)) continue;
    if (selection.enough(removed, unitsTaken)) break;
    take(unit);
    unitsTaken++;
  }
  return removed;
}
