/**
 * The OpenAI-compatible front door (issue 14): `GET /v1/models` lists the swarm's agents and
 * `POST /v1/chat/completions` runs one turn. `model` names the agent; the conversation is the
 * instance named by `user` or the `X-Goondan-Instance` header (absent: a new instance per request);
 * the last user message is the input, and earlier user/assistant messages seed the history of an
 * instance that has none (an instance with history keeps its own). `stream: true` answers with
 * chat.completion.chunk events ending in `[DONE]`. Same credential as the rest of the API.
 */
import { newId } from '../../../shared/ids.ts';
import { validateInstanceKey } from '../../../shared/instance-key.ts';
import type { JsonObject } from '../../../shared/types/json.ts';
import type { ApiRoute, DaemonApi } from '../api-server.ts';
import { jsonResponse } from '../http-errors.ts';
import { chatCompletion, failedTurnStatus, openAiError, openAiErrorFrom } from './openai-format.ts';
import { streamCompletion } from './stream-completion.ts';
import { followRuntimeEvents, settledOrStop } from '../trace-stream.ts';
import { compiledValidator } from '../../../shared/validation/compiled-validator.ts';
import { readBoundedText } from '../../../shared/http/bounded-body.ts';

interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
}

interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  user?: string;
  stream_options?: { include_usage?: boolean };
}

// OpenAI clients send many optional sampling fields; they are accepted and ignored (the agent's own settings win).
const validateRequest = compiledValidator<ChatCompletionRequest>({
  options: { allErrors: true, strict: false },
  schema: {
    type: 'object',
    required: ['model', 'messages'],
    properties: {
      model: { type: 'string', minLength: 1 },
      messages: {
        type: 'array',
        minItems: 1,
        items: { type: 'object', required: ['role'], properties: { role: { type: 'string' }, content: { type: ['string', 'array', 'null'] } } },
      },
      stream: { type: 'boolean' },
      user: { type: 'string', minLength: 1 },
      stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
    },
  },
});

const MAX_BODY_BYTES = 1_000_000;
/** OpenAI clients default to long waits; a chat turn may take a while. */
const CHAT_TIMEOUT_MS = 600_000;

export function openAiRoutes(daemon: DaemonApi): ApiRoute[] {
  return [
    {
      method: 'GET',
      pattern: /^\/v1\/models$/,
      handle: async () => jsonResponse(200, { object: 'list', data: daemon.agents().map((id) => ({ id, object: 'model', created: 0, owned_by: 'goondan' })) }),
    },
    { method: 'POST', pattern: /^\/v1\/chat\/completions$/, handle: (request) => chatCompletions(request, daemon) },
  ];
}

function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

async function chatCompletions(request: Request, daemon: DaemonApi): Promise<Response> {
  const read = await readBoundedText(request, MAX_BODY_BYTES);
  if (!read.ok && read.reason === 'too-large') return openAiError(413, `request body is larger than ${MAX_BODY_BYTES} bytes`, 'invalid_request_error', 'request_too_large');
  if (!read.ok) return openAiError(400, 'the request body could not be read (the client aborted the upload)', 'invalid_request_error', 'body_aborted');
  const { text } = read;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    daemon.countMalformedBody();
    return openAiError(400, `body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, 'invalid_request_error', 'invalid_json');
  }
  if (!validateRequest(body)) {
    daemon.countMalformedBody();
    const first = validateRequest.errors?.[0];
    return openAiError(400, `${first?.instancePath || '(body)'} ${first?.message ?? 'is invalid'}`, 'invalid_request_error', 'invalid_request', first?.instancePath.replace(/^\//, '').replace(/\//g, '.') || null);
  }
  if (!daemon.isKnownAgent(body.model)) {
    return openAiError(404, `The model '${body.model}' does not exist: models are the agents of the running swarm (GET /v1/models).`, 'invalid_request_error', 'model_not_found', 'model');
  }
  const lastUserIndex = body.messages.findLastIndex((m) => m.role === 'user');
  const lastUser = body.messages[lastUserIndex];
  const input = lastUser ? textOf(lastUser) : '';
  if (input.trim() === '') return openAiError(400, 'the request needs a user message with text', 'invalid_request_error', 'invalid_request', 'messages');
  const instanceKey = request.headers.get('x-goondan-instance') ?? body.user ?? `chat-${newId('inst').slice(5)}`;
  const badKey = validateInstanceKey(instanceKey);
  if (badKey) return openAiError(400, badKey, 'invalid_request_error', 'invalid_instance', 'user');

  const earlier = body.messages.slice(0, lastUserIndex);
  const seed = earlier.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => ({ role: m.role, content: textOf(m) }));
  const metadata: JsonObject = seed.length > 0 ? { __seedMessages: seed } : {};
  const submitted = await daemon.submit({ agent: body.model, instanceKey, input, source: { kind: 'api', name: 'openai' }, wait: true, timeoutMs: CHAT_TIMEOUT_MS, metadata, ...(body.stream === true ? { stream: true } : {}) });
  const id = `chatcmpl-${submitted.eventId}`;
  const created = Math.floor(Date.now() / 1000);
  if (body.stream === true) {
    const events = followRuntimeEvents(daemon.runtimeEvents);
    // A 200 that starts streaming tells the caller the event was accepted: only once it is on disk.
    await settledOrStop(submitted.stored, events);
    return streamCompletion({ id, model: body.model, created, submitted, includeUsage: body.stream_options?.include_usage === true, events });
  }
  const outcome = await submitted.reply;
  if (!outcome) return openAiError(500, 'no reply', 'server_error', null);
  if (outcome.status !== 'ok') return openAiErrorFrom(failedTurnStatus(outcome), outcome.error ?? { code: 'AGENT_TURN_FAILED', category: 'system', message: 'the turn failed' });
  return jsonResponse(200, chatCompletion(id, body.model, created, outcome.output, outcome.usage), { 'x-goondan-instance': instanceKey });
}
