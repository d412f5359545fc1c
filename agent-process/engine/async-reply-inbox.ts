/**
 * Replies to `async: true` requests waiting to enter the conversation (SPEC.md §2.6): each becomes
 * a user message carrying `metadata.__goondanInterAgentResponse`, appended before the next step of
 * the running turn, or at the start of the next turn when the agent is idle. The text is the reply
 * itself; readable framing is the job of the inter-agent-response-format extension. Completions of
 * pending tool calls (tool spec §10.2) wait here too and enter the same way (tool-completion.ts).
 * Waiting replies are kept in `messages/async-replies.jsonl` until they are in the conversation
 * (issue 10), so a crash between their arrival and the next step loses none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { AppendedLines } from '../../shared/durability/appended-lines.ts';
import type { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { warnTornTail } from '../../shared/durability/line-boundary.ts';
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
  /** The replies kept on disk until they are in the conversation's own file. */
  private readonly kept: AppendedLines | undefined;

  /** Without a file (unit tests of other rules) waiting replies live in memory only. */
  constructor(
    private readonly logger: Logger,
    private readonly file?: { path: string; fsync: FsyncPolicy; alreadyInConversation(requestId: string): boolean },
  ) {
    this.kept = file ? new AppendedLines(file.path, file.fsync, warnTornTail(logger)) : undefined;
    if (!file || !existsSync(file.path)) return;
    for (const raw of readFileSync(file.path, 'utf8').split('\n')) {
      if (raw.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(raw);
        // Replies that reached the conversation before a crash cleared the file are not injected twice.
        if (isInterAgentReply(value) && !file.alreadyInConversation(value.requestId)) this.replies.push(value);
      } catch {
        // a torn last line: that reply's ack never left the process, so it is sent again
      }
    }
    if (this.replies.length > 0) logger.info({ replies: this.replies.length }, 'recovered async replies waiting for the conversation');
  }

  push(reply: Waiting): void {
    // A redelivered reply (its ack was lost) is taken once.
    if ('requestId' in reply && (this.replies.some((r) => 'requestId' in r && r.requestId === reply.requestId) || this.file?.alreadyInConversation(reply.requestId))) return;
    if (this.replies.length >= ASYNC_INBOX_LIMIT) {
      const dropped = this.replies.shift();
      const id = dropped && 'requestId' in dropped ? { requestId: dropped.requestId } : { toolCallId: dropped?.toolCallId };
      this.logger.warn({ code: 'E_ASYNC_INBOX_FULL', ...id }, 'async reply inbox full; dropped the oldest reply');
    }
    this.replies.push(reply);
    // Pending tool completions are not kept on disk: a crash ends their tool call anyway.
    if ('requestId' in reply) this.kept?.append([reply]);
  }

  close(): void {
    this.kept?.close();
  }

  get size(): number {
    return this.replies.length;
  }

  /** Hands the waiting replies as messages, oldest first, to `append` (the conversation); the inbox is empty afterwards. */
  drain(append: (message: Message) => void): void {
    if (this.replies.length === 0) return;
    const replies = this.replies;
    this.replies = [];
    for (const reply of replies) {
      append('requestId' in reply ? createMessage({ role: 'user', content: replyText(reply) }, { type: 'user' }, { __goondanInterAgentResponse: replyMetadata(reply) }) : completionMessage(reply));
    }
    // Only once they are in the conversation's own file.
    this.kept?.empty();
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

function isInterAgentReply(value: unknown): value is InterAgentReply {
  return (
    typeof value === 'object' &&
    value !== null &&
    'kind' in value &&
    value.kind === 'inter_agent_response' &&
    'requestId' in value &&
    typeof value.requestId === 'string' &&
    'status' in value &&
    'text' in value &&
    typeof value.text === 'string'
  );
}
