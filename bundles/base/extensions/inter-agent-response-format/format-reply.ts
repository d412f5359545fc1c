/**
 * The readable form of an async inter-agent reply (pure): a header naming who answered, how and to
 * which request, then the reply text — or, for an error or a timeout, its code and message.
 *   [reply from reviewer · ok · request corr_1]
 *   Looks good, ship it.
 */
import type { ModelMessage } from 'ai';
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';
import type { Message } from '../../../../shared/types/messages.ts';

/** Metadata key the engine puts on an injected reply (InterAgentReply in shared/types/events.ts). */
export const REPLY_KEY = '__goondanInterAgentResponse';
/** Metadata key this extension adds once a reply is formatted (so it is rewritten only once). */
export const FORMATTED_KEY = 'interAgentResponse.formatted';

export interface ReplyFacts {
  from: string;
  status: string;
  requestId: string;
  errorCode?: string;
  errorMessage?: string;
}

/** The reply facts of an injected, not yet formatted message; undefined for every other message. */
export function unformattedReply(message: Message): ReplyFacts | undefined {
  if (message.metadata[FORMATTED_KEY] !== undefined) return undefined;
  const meta = objectOf(message.metadata[REPLY_KEY]);
  if (meta === undefined || meta.kind !== 'inter_agent_response') return undefined;
  const facts: ReplyFacts = {
    from: stringOf(meta.fromAgentId) ?? 'unknown agent',
    status: stringOf(meta.status) ?? 'ok',
    requestId: stringOf(meta.requestId) ?? '',
  };
  const error = objectOf(meta.error);
  const errorCode = stringOf(error?.code);
  const errorMessage = stringOf(error?.message);
  if (errorCode !== undefined) facts.errorCode = errorCode;
  if (errorMessage !== undefined) facts.errorMessage = errorMessage;
  return facts;
}

export function formatReply(facts: ReplyFacts, replyText: string, includeRequestId: boolean): string {
  const header = [`reply from ${facts.from}`, facts.status, ...(includeRequestId && facts.requestId !== '' ? [`request ${facts.requestId}`] : [])].join(' · ');
  return `[${header}]\n${body(facts, replyText)}`;
}

function body(facts: ReplyFacts, replyText: string): string {
  if (facts.status === 'ok') return replyText === '' ? '(empty reply)' : replyText;
  const detail = [facts.errorCode, facts.errorMessage].filter((part) => part !== undefined && part !== '').join(': ');
  if (detail !== '') return detail;
  // The engine writes the bare status when a failed reply has no text: not worth repeating.
  if (replyText !== '' && replyText !== facts.status) return replyText;
  return facts.status === 'timeout' ? 'no reply before the request timed out' : 'the request failed';
}

/** The text of a user message (string content or its text parts). */
export function textOf(data: ModelMessage): string {
  if (typeof data.content === 'string') return data.content;
  if (data.role !== 'user' && data.role !== 'assistant') return '';
  return data.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

function stringOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
