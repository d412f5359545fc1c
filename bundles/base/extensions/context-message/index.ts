/**
 * context-message (SPEC.md §5.4, ARCHITECTURE §5): the only way a system prompt reaches the model.
 * Turn middleware that keeps exactly ONE system message first in the conversation — the agent's
 * `prompt.system` (unless `includeAgentPrompt: false`) plus the optional `[runtime_catalog]`,
 * `[runtime_inbound]` (with a connector event's `properties.*`) and `[runtime_call]` blocks
 * (config: context-config.ts) — marked with the sha256 of its text, so it is added once and
 * replaced only when the text changes. The message is pinned so windowing and compaction keep it.
 */
import type { ExtensionApi, MiddlewareRuntimeInfo, TurnMiddlewareContext } from '../../../../shared/types/extensions.ts';
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';
import type { Message, MessageEvent } from '../../../../shared/types/messages.ts';
import { type ContextMessageConfig, readContextMessageConfig } from './context-config.ts';
import { block } from './runtime-block.ts';

/** Metadata key holding `{ sha256 }` of the message text. */
export const CONTEXT_MESSAGE_MARKER = '__goondanContextMessage';

export function register(api: ExtensionApi, config: JsonObject): void {
  // Unknown keys and wrong types fail the agent's start (E_EXT_CONFIG), as for every built-in extension.
  const options = readContextMessageConfig(config);
  // Outer (low priority) so other turn middleware already sees the prompt in place.
  api.pipeline.register('turn', (ctx) => {
    for (const event of contextMessageEvents(ctx, buildSystemText(ctx.runtime, options), api.name)) ctx.emitMessageEvent(event);
    return ctx.next();
  }, { priority: -100 });
}

/** The system text: prompt, then the enabled runtime blocks ('' when there is nothing to say). */
export function buildSystemText(runtime: MiddlewareRuntimeInfo, options: ContextMessageConfig): string {
  const sections: string[] = [];
  const prompt = options.includeAgentPrompt ? runtime.agent.prompt?.system?.trim() : undefined;
  if (prompt) sections.push(prompt);
  if (options.includeCatalog) {
    sections.push(
      block('runtime_catalog', {
        swarm: runtime.swarm.swarmName,
        self: runtime.swarm.selfAgent,
        entryAgent: runtime.swarm.entryAgent,
        callableAgents: runtime.swarm.callableAgents.join(', ') || '(none)',
      }),
    );
  }
  if (options.includeInbound) {
    const inbound = runtime.inbound;
    sections.push(
      block('runtime_inbound', {
        eventId: inbound.eventId,
        eventType: inbound.eventType,
        source: `${inbound.sourceKind}/${inbound.sourceName}`,
        instanceKey: inbound.instanceKey,
        createdAt: inbound.createdAt,
        // Connector properties, so a prompt can use them (e.g. the chat_id a telegram__send needs);
        // `text` repeats the message the model already has as the user message, so it is left out.
        ...Object.fromEntries(Object.entries(inbound.properties ?? {}).filter(([key]) => key !== 'text').map(([key, value]) => [`properties.${key}`, value])),
      }),
    );
  }
  if (options.includeCall && runtime.call) {
    const call = runtime.call;
    sections.push(
      block('runtime_call', {
        callerAgent: call.callerAgent,
        callerInstanceKey: call.callerInstanceKey,
        replyExpected: call.replyTo ? 'yes (your final answer is sent back to the caller)' : 'no',
      }),
    );
  }
  return sections.join('\n\n');
}

/** The events that make the conversation start with exactly this system message (none if it already does). */
export function contextMessageEvents(ctx: Pick<TurnMiddlewareContext, 'conversationState'>, text: string, extensionName: string): MessageEvent[] {
  const conversation = ctx.conversationState;
  // Through the system-message index: every turn of every agent comes here, so no scan of the history.
  const marked = conversation.systemMessages().filter(isContextMessage);
  const first = conversation.messageAt(0);
  if (text === '') return marked.map((message) => ({ type: 'remove', targetId: message.id }));

  // Bun's hasher and the global Web Crypto: node:crypto would add ~5 MB to every agent process.
  const hash = new Bun.CryptoHasher('sha256').update(text).digest('hex');
  const inPlace = first !== undefined && isContextMessage(first) && marked.length === 1;
  if (inPlace && markerHash(first) === hash) return [];
  const message = systemMessage(text, hash, extensionName);
  if (inPlace) return [{ type: 'replace', targetId: first.id, message }];
  if (conversation.messageCount === 0) return [{ type: 'append', message }];
  // Not first (or duplicated): rebuild the conversation with it in front, every other id kept.
  const others = conversation.nextMessages.filter((m) => !isContextMessage(m));
  return [{ type: 'truncate' }, { type: 'append', message }, ...others.map((m): MessageEvent => ({ type: 'append', message: m }))];
}

function isContextMessage(message: Message): boolean {
  return message.data.role === 'system' && message.metadata[CONTEXT_MESSAGE_MARKER] !== undefined;
}

function markerHash(message: Message): string | undefined {
  const marker: JsonValue | undefined = message.metadata[CONTEXT_MESSAGE_MARKER];
  return typeof marker === 'object' && marker !== null && !Array.isArray(marker) && typeof marker.sha256 === 'string' ? marker.sha256 : undefined;
}

function systemMessage(text: string, hash: string, extensionName: string): Message {
  return {
    id: `msg_ctx_${crypto.randomUUID()}`,
    data: { role: 'system', content: text },
    metadata: { [CONTEXT_MESSAGE_MARKER]: { sha256: hash }, pinned: true },
    createdAt: new Date().toISOString(),
    source: { type: 'extension', extensionName },
  };
}
