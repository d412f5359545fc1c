/** Hand-built Messages for the pure-function tests (ids are unique per call). */
import { nanoid } from 'nanoid';
import type { JsonValue } from '../../../shared/types/json.ts';
import type { Message } from '../../../shared/types/messages.ts';

const now = (): string => new Date().toISOString();

export function userMessage(text: string, metadata: Record<string, JsonValue> = {}): Message {
  return { id: `msg_${nanoid(8)}`, data: { role: 'user', content: text }, metadata, createdAt: now(), source: { type: 'user' } };
}

export function assistantText(text: string): Message {
  return { id: `msg_${nanoid(8)}`, data: { role: 'assistant', content: [{ type: 'text', text }] }, metadata: {}, createdAt: now(), source: { type: 'assistant', stepId: 'step_x' } };
}

export function assistantCalls(callIds: string[], input: JsonValue = { text: 'x' }): Message {
  return {
    id: `msg_${nanoid(8)}`,
    data: { role: 'assistant', content: callIds.map((id) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'echo__say', input })) },
    metadata: {},
    createdAt: now(),
    source: { type: 'assistant', stepId: 'step_x' },
  };
}

export function toolResult(callId: string, value: string | JsonValue = 'ok'): Message {
  const output = typeof value === 'string' ? { type: 'text' as const, value } : { type: 'json' as const, value };
  return {
    id: `msg_${nanoid(8)}`,
    data: { role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'echo__say', output }] },
    metadata: {},
    createdAt: now(),
    source: { type: 'tool', toolCallId: callId, toolName: 'echo__say' },
  };
}

/** A context-message style system prompt (pinned and marked). */
export function systemPrompt(text: string): Message {
  return {
    id: `msg_${nanoid(8)}`,
    data: { role: 'system', content: text },
    metadata: { __goondanContextMessage: { sha256: 'x' }, pinned: true },
    createdAt: now(),
    source: { type: 'extension', extensionName: 'context-message' },
  };
}
