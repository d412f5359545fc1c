/**
 * What an OpenAI-compatible server answers to `stream: true`: the chat.completion body as
 * server-sent chunks (role, the text in two pieces, tool calls, the finish reason, usage, [DONE]).
 * The engine streams every model call, so fake servers answer streamed requests this way.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../shared/types/json.ts';

/** A chat.completion body as the chunk stream the API sends for `stream: true` (text in two pieces). */
export function streamed(body: JsonObject): Response {
  const { choices, usage, ...head } = body;
  const choice = Array.isArray(choices) && isJsonObject(choices[0]) ? choices[0] : {};
  const message = isJsonObject(choice.message) ? choice.message : {};
  const chunk = (delta: JsonObject, finish: JsonValue = null): JsonObject => ({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: JsonObject[] = [chunk({ role: 'assistant' })];
  if (typeof message.content === 'string') {
    const half = Math.ceil(message.content.length / 2);
    chunks.push(chunk({ content: message.content.slice(0, half) }), chunk({ content: message.content.slice(half) }));
  }
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, index) => {
      if (isJsonObject(call)) chunks.push(chunk({ tool_calls: [{ index, ...call }] }));
    });
  }
  chunks.push(chunk({}, choice.finish_reason ?? null), { ...head, object: 'chat.completion.chunk', choices: [], usage: usage ?? null });
  const text = `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
  return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
}
