/** Reading model messages: their text, their tool calls and which tool calls already have results. */
import type { ModelMessage } from 'ai';
import type { JsonValue } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import { isJsonValue } from '../validation/json-value.ts';

/** Text parts of a message joined with newlines ('' when there are none). */
export function messageText(data: ModelMessage): string {
  if (typeof data.content === 'string') return data.content;
  const texts: string[] = [];
  for (const part of data.content) if (part.type === 'text') texts.push(part.text);
  return texts.join('\n');
}

export interface ToolCallRef {
  toolCallId: string;
  toolName: string;
  input: JsonValue;
}

export function toolCallsOf(data: ModelMessage): ToolCallRef[] {
  if (data.role !== 'assistant' || typeof data.content === 'string') return [];
  const calls: ToolCallRef[] = [];
  for (const part of data.content) {
    if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: toJsonValue(part.input) });
  }
  return calls;
}

export function toolResultIdsOf(data: ModelMessage): string[] {
  if (data.role !== 'tool') return [];
  const ids: string[] = [];
  for (const part of data.content) if (part.type === 'tool-result') ids.push(part.toolCallId);
  return ids;
}

/** Tool calls in `messages[from…]` that have no tool result after them, with their assistant message. */
export function pendingToolCalls(messages: readonly Message[], from = 0): Array<{ call: ToolCallRef; message: Message }> {
  const answered = new Set<string>();
  for (let i = from; i < messages.length; i++) {
    const message = messages[i];
    if (message) for (const id of toolResultIdsOf(message.data)) answered.add(id);
  }
  const pending: Array<{ call: ToolCallRef; message: Message }> = [];
  for (let i = from; i < messages.length; i++) {
    const message = messages[i];
    if (!message) continue;
    for (const call of toolCallsOf(message.data)) if (!answered.has(call.toolCallId)) pending.push({ call, message });
  }
  return pending;
}

function toJsonValue(value: unknown): JsonValue {
  return isJsonValue(value) ? value : null;
}
