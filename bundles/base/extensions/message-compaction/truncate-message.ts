/**
 * Shortening one old message for `truncate` mode: text, reasoning and tool-result outputs are cut
 * to a shared budget with a visible note of what was cut; tool-call arguments are never cut (they
 * must stay the JSON object the call was made with). The id stays, so pairs and references hold.
 */
import type { ModelMessage, ToolResultPart } from 'ai';
import type { JsonValue } from '../../../../shared/types/json.ts';
import type { Message } from '../../../../shared/types/messages.ts';
import { messageCharacters, toolOutputText } from './message-size.ts';

/** Metadata key on a shortened message: `{ originalCharacters }`. */
export const TRUNCATED_KEY = 'compaction.truncated';

export function isTruncated(message: Message): boolean {
  return message.metadata[TRUNCATED_KEY] !== undefined;
}

/** The message cut to about `maxCharacters`, or undefined when there is nothing to cut. */
export function truncateMessage(message: Message, maxCharacters: number): Message | undefined {
  const before = messageCharacters(message.data);
  if (before <= maxCharacters) return undefined;
  const data = truncateData(message.data, maxCharacters);
  if (messageCharacters(data) >= before) return undefined;
  const original = originalCharacters(message) ?? before;
  return { ...message, data, metadata: { ...message.metadata, [TRUNCATED_KEY]: { originalCharacters: original } } };
}

function truncateData(data: ModelMessage, budget: number): ModelMessage {
  let left = budget;
  const cut = (text: string): string => {
    const kept = Math.max(0, left);
    left -= Math.min(text.length, kept);
    return text.length <= kept ? text : `${text.slice(0, kept)}${note(text.length - kept)}`;
  };
  switch (data.role) {
    case 'system':
      return { ...data, content: cut(data.content) };
    case 'user':
      if (typeof data.content === 'string') return { ...data, content: cut(data.content) };
      return { ...data, content: data.content.map((part) => (part.type === 'text' ? { ...part, text: cut(part.text) } : part)) };
    case 'assistant':
      if (typeof data.content === 'string') return { ...data, content: cut(data.content) };
      return {
        ...data,
        content: data.content.map((part) => {
          if (part.type === 'text' || part.type === 'reasoning') return { ...part, text: cut(part.text) };
          if (part.type === 'tool-call') left -= JSON.stringify(part.input ?? null).length;
          return part;
        }),
      };
    case 'tool':
      return { ...data, content: data.content.map((part) => (part.type === 'tool-result' ? { ...part, output: cutOutput(part.output, cut) } : part)) };
  }
}

function cutOutput(output: ToolResultPart['output'], cut: (text: string) => string): ToolResultPart['output'] {
  const text = toolOutputText(output);
  const shortened = cut(text);
  if (shortened === text) return output;
  // Cut JSON is no longer JSON: it goes on as text (an error stays an error).
  return output.type === 'error-text' || output.type === 'error-json' ? { type: 'error-text', value: shortened } : { type: 'text', value: shortened };
}

function note(omitted: number): string {
  return `\n[… ${omitted} characters cut by message-compaction]`;
}

function originalCharacters(message: Message): number | undefined {
  const marker: JsonValue | undefined = message.metadata[TRUNCATED_KEY];
  if (typeof marker !== 'object' || marker === null || Array.isArray(marker)) return undefined;
  return typeof marker.originalCharacters === 'number' ? marker.originalCharacters : undefined;
}
