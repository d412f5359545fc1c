/**
 * Replies to `async: true` requests waiting to enter the conversation (SPEC.md §2.6): each becomes
 * a user message carrying `metadata.__goondanInterAgentResponse`, appended before the next step of
 * the running turn, or at the start of the next turn when the agent is idle. The text is the reply
 * itself; readable framing is the job of the inter-agent-response-format extension. Completions of
 * pending tool calls (tool spec §10.2) wait here too and enter the same way (tool-completion.ts).
 */
import type { InterAgentReply } from '../../shared/types/events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { Logger } from '../../shared/types/tools.ts';
import { createMessage } from '../conversation/message-factory.ts';
import { completionMessage, type ToolCompletion } from '../tools/tool-completion.ts';

/** SPEC.md §2.6 [ref]: the inbox holds at most 256 replies. */
export const ASYNC_INBOX_LIMIT = 256;

type Waiting = InterAgentReply | ToolCompletion;

export class AsyncReplyInbox {
  private replies: Waiting[] = [];

  constructor(private readonly logger: Logger) {}

  push(reply: Waiting): void {
    if (this.replies.length >= ASYNC_INBOX_LIMIT) {
      const dropped = this.replies.shift();
      const id = dropped && 'requestId' in dropped ? { requestId: dropped.requestId } : { toolCallId: dropped?.toolCallId };
      this.logger.warn({ code: 'E_ASYNC_INBOX_FULL', ...id }, 'async reply inbox full; dropped the oldest reply');
    }
    this.replies.push(reply);
  }

  get size(): number {
    return this.replies.length;
  }

  /** The waiting replies as messages, oldest first; the inbox is empty afterwards. */
  drain(): Message[] {
    if (this.replies.length === 0) return [];
    const replies = this.replies;
    this.replies = [];
    return replies.map((reply) =>
      'requestId' in reply ? createMessage({ role: 'user', content: replyText(reply) }, { type: 'user' }, { __goondanInterAgentResponse: replyMetadata(reply) }) : completionMessage(reply),
    );
  }
}

function replyText(reply: InterAgentReply): string {
  if (reply.status === 'ok') return reply.text;
  const detail = reply.error ? `${reply.error.code}: ${reply.error.message}` : '';
  return reply.text !== '' ? reply.text : `${reply.status}${detail === '' ? '' : ` (${detail})`}`;
}

function replyMetadata(reply: InterAgentReply): JsonObject {
  const meta: JsonObject = {
    kind: reply.kind,
    version: reply.version,
    requestId: reply.requestId,
    requestEventId: reply.requestEventId,
    fromAgentId: reply.fromAgentId,
    toAgentId: reply.toAgentId,
    async: true,
    status: reply.status,
    receivedAt: reply.receivedAt,
  };
  if (reply.responseEventId !== undefined) meta.responseEventId = reply.responseEventId;
  if (reply.traceId !== undefined) meta.traceId = reply.traceId;
  if (reply.error !== undefined) meta.error = reply.error;
  return meta;
}
