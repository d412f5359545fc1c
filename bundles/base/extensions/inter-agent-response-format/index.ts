/**
 * inter-agent-response-format (SPEC.md §5.4): the engine injects each async inter-agent reply as
 * a user message holding the bare reply text and `metadata.__goondanInterAgentResponse`. Before
 * every model call this extension `replace`s each such message (same id, metadata kept) with a
 * readable version that says who answered, with which status, to which request — so a model that
 * fired several requests can tell the answers apart and sees errors and timeouts for what they are.
 * Messages are only ever appended at the end, so each step reads the messages after the newest one
 * the previous step saw: its cost does not grow with the history.
 */
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { ConversationState, Message } from '../../../../shared/types/messages.ts';
import { FORMATTED_KEY, formatReply, textOf, unformattedReply } from './format-reply.ts';
import { readInterAgentResponseFormatConfig } from './format-config.ts';

/** Outer step middleware: replies are readable before windowing or compaction measure them. */
export const FORMAT_STEP_PRIORITY = -900;

export function register(api: ExtensionApi, config: JsonObject): void {
  const options = readInterAgentResponseFormatConfig(config);
  let newestSeen: string | undefined;
  api.pipeline.register(
    'step',
    (ctx) => {
      const state = ctx.conversationState;
      const unseen = messagesAfter(state, newestSeen);
      newestSeen = state.messageAt(-1)?.id;
      for (const message of unseen) {
        const facts = unformattedReply(message);
        if (facts === undefined) continue;
        const original = textOf(message.data);
        ctx.emitMessageEvent({
          type: 'replace',
          targetId: message.id,
          message: {
            ...message,
            data: { role: 'user', content: formatReply(facts, original, options.includeRequestId) },
            metadata: { ...message.metadata, [FORMATTED_KEY]: true },
          },
        });
      }
      return ctx.next();
    },
    { priority: FORMAT_STEP_PRIORITY },
  );
}

/** The messages after the one with id `newestSeen`, in order; all of them when it is gone (or at the first step). */
function messagesAfter(state: ConversationState, newestSeen: string | undefined): Message[] {
  const unseen: Message[] = [];
  for (let at = state.messageCount - 1; at >= 0; at--) {
    const message = state.messageAt(at);
    if (message === undefined || message.id === newestSeen) break;
    unseen.push(message);
  }
  return unseen.reverse();
}
