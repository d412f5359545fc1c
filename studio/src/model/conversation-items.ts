/**
 * An instance's stored messages (`GET /v1/instances/{key}/messages`) as what the Conversation
 * view shows: inputs (from a user, a connector or another agent), replies, tool calls with their
 * arguments, tool results, and the system prompt. Narrowed from JSON part by part; a part of a
 * kind the view does not know is shown as JSON rather than dropped. Pure.
 */
import { AGENT_CALL_TOOLS } from '../../../shared/observe/agent-calls.ts';
import { isObject, type Json, obj, optStr, str } from '../json-fields.ts';

export type ConversationItem =
  | { kind: 'system'; id: string; text: string }
  | { kind: 'input'; id: string; text: string; at: string; eventType: string | undefined; traceId: string | undefined }
  | { kind: 'reply'; id: string; text: string; at: string }
  | { kind: 'tool-call'; id: string; toolCallId: string; toolName: string; args: unknown; target: string | undefined }
  | { kind: 'tool-result'; id: string; toolCallId: string; toolName: string; output: unknown; isError: boolean }
  | { kind: 'other'; id: string; role: string; value: unknown };

export function conversationItems(messages: readonly Json[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  for (const message of messages) {
    const id = str(message, 'id');
    const data = obj(message, 'data') ?? {};
    const role = str(data, 'role');
    const content = data.content;
    const at = str(message, 'createdAt');
    const parts = Array.isArray(content) ? content.filter(isObject) : [];
    if (role === 'system') items.push({ kind: 'system', id, text: typeof content === 'string' ? content : textOf(parts) });
    else if (role === 'user') {
      const metadata = obj(message, 'metadata') ?? {};
      items.push({ kind: 'input', id, text: typeof content === 'string' ? content : textOf(parts), at, eventType: optStr(metadata, 'eventType'), traceId: optStr(metadata, 'traceId') });
    } else if (role === 'assistant') {
      if (typeof content === 'string') items.push({ kind: 'reply', id, text: content, at });
      const text = textOf(parts);
      if (text !== '') items.push({ kind: 'reply', id, text, at });
      parts.forEach((part, n) => {
        if (part.type !== 'tool-call') return;
        const args = part.input ?? part.args;
        const toolName = str(part, 'toolName');
        const target = AGENT_CALL_TOOLS.includes(toolName) && isObject(args) ? optStr(args, 'target') : undefined;
        items.push({ kind: 'tool-call', id: `${id}:${n}`, toolCallId: str(part, 'toolCallId'), toolName, args, target });
      });
    } else if (role === 'tool') {
      parts.forEach((part, n) => {
        const output = obj(part, 'output');
        const type = output ? str(output, 'type') : '';
        items.push({
          kind: 'tool-result',
          id: `${id}:${n}`,
          toolCallId: str(part, 'toolCallId'),
          toolName: str(part, 'toolName'),
          output: output && 'value' in output ? output.value : (part.output ?? part.result),
          isError: type.startsWith('error') || isErrorResult(output?.value),
        });
      });
    } else items.push({ kind: 'other', id, role, value: data });
  }
  return items;
}

function textOf(parts: readonly Json[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => str(p, 'text'))
    .join('\n');
}

/** goondan's tool results carry `status: "error"` with an `error` object (tool spec §10). */
function isErrorResult(value: unknown): boolean {
  return isObject(value) && value.status === 'error';
}
