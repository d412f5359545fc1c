/**
 * The completion of a pending call (tool spec §10.2): the work a handler handed to
 * `ctx.pending(handle, {completion})` settled. It enters the conversation like an async
 * inter-agent reply — a user message before the next step, or at the start of the next turn —
 * carrying `metadata.__goondanToolCompletion` so extensions and the model can tell what it is.
 */
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { ToolError } from '../../shared/types/tools.ts';
import { createMessage } from '../conversation/message-factory.ts';

export type ToolCompletion = { toolCallId: string; toolName: string; handle: string } & ({ status: 'ok'; output: JsonValue } | { status: 'error'; error: ToolError });

const MAX_OUTPUT_CHARS = 20_000;

export function completionMessage(completion: ToolCompletion): Message {
  const head = `[${completion.toolName} ${completion.handle}]`;
  const text =
    completion.status === 'ok'
      ? `${head} The pending work finished: ${cut(typeof completion.output === 'string' ? completion.output : JSON.stringify(completion.output))}`
      : `${head} The pending work failed: ${completion.error.code}: ${completion.error.message}`;
  const meta: JsonObject = { toolCallId: completion.toolCallId, toolName: completion.toolName, handle: completion.handle, status: completion.status };
  if (completion.status === 'error') meta.error = completion.error;
  return createMessage({ role: 'user', content: text }, { type: 'user' }, { __goondanToolCompletion: meta });
}

function cut(text: string): string {
  return text.length <= MAX_OUTPUT_CHARS ? text : `${text.slice(0, MAX_OUTPUT_CHARS)}… (cut at ${MAX_OUTPUT_CHARS} characters)`;
}
