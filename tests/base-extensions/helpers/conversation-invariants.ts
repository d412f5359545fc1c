/**
 * Checks of what a model may be sent, written independently of the extensions under test: every
 * assistant tool call is answered by tool messages that follow it directly, every tool message
 * answers the assistant message right before it (what OpenAI, Anthropic and Google all demand).
 */
import type { Message } from '../../../shared/types/messages.ts';

export function pairingProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open: Set<string> | undefined;
  let openAt = -1;
  messages.forEach((message, index) => {
    const data = message.data;
    if (data.role === 'tool') {
      for (const part of data.content) {
        if (part.type !== 'tool-result') continue;
        if (open?.has(part.toolCallId)) open.delete(part.toolCallId);
        else problems.push(`message ${index} (${message.id}) answers call ${part.toolCallId}, which the assistant message before it does not make`);
      }
      return;
    }
    if (open !== undefined && open.size > 0) problems.push(`assistant message ${openAt} has unanswered calls ${[...open].join(', ')} before message ${index}`);
    open = undefined;
    if (data.role === 'assistant' && typeof data.content !== 'string') {
      const calls = data.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
      if (calls.length > 0) {
        open = new Set(calls);
        openAt = index;
      }
    }
  });
  if (open !== undefined && open.size > 0) problems.push(`assistant message ${openAt} has unanswered calls ${[...open].join(', ')} at the end`);
  return problems;
}

/** Plain text of a message (string content or its text parts). */
export function textOf(message: Message): string {
  const content = message.data.content;
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/** The first non-system message is a user message (or there is none). */
export function startsWithUser(messages: readonly Message[]): boolean {
  const first = messages.find((message) => message.data.role !== 'system');
  return first === undefined || first.data.role === 'user';
}
