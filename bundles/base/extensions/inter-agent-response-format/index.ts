/**
 * inter-agent-response-format (SPEC.md §5.4): the engine injects each async inter-agent reply as
 * a user message holding the bare reply text and `metadata.__goondanInterAgentResponse`. Before
 * every model call this extension `replace`s each such message (same id, metadata kept) with a
 * readable version that says who answered, with which status, to which request — so a model that
 * fired several requests can tell the answers apart and sees errors and timeouts for what they are.
 */
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { JsonObject } from '../../../../shared/types/json.ts';
import { FORMATTED_KEY, formatReply, textOf, unformattedReply } from './format-reply.ts';
import { readInterAgentResponseFormatConfig } from './format-config.ts';

/** Outer step middleware: replies are readable before windowing or compaction measure them. */
export const FORMAT_STEP_PRIORITY = -900;

export function register(api: ExtensionApi, config: JsonObject): void {
  const options = readInterAgentResponseFormatConfig(config);
  api.pipeline.register(
    'step',
    (ctx) => {
      for (const message of ctx.conversationState.nextMessages) {
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
