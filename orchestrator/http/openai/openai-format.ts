/**
 * OpenAI's wire shapes for the compatible front door: chat.completion, chat.completion.chunk,
 * model lists and the `{error: {message, type, param, code}}` body — what the official clients
 * and chat UIs parse.
 */
import type { ErrorShape } from '../../../shared/errors/index.ts';
import type { JsonObject } from '../../../shared/types/json.ts';
import type { TokenUsage } from '../../../shared/types/turns.ts';
import { jsonResponse } from '../http-errors.ts';

export function openAiUsage(usage: TokenUsage | undefined): JsonObject {
  return { prompt_tokens: usage?.promptTokens ?? 0, completion_tokens: usage?.completionTokens ?? 0, total_tokens: usage?.totalTokens ?? 0 };
}

export function chatCompletion(id: string, model: string, created: number, content: string, usage: TokenUsage | undefined): JsonObject {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: openAiUsage(usage),
  };
}

export function chatChunk(id: string, model: string, created: number, delta: JsonObject, finishReason: string | null, usage?: TokenUsage): JsonObject {
  const chunk: JsonObject = { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
  if (usage) chunk.usage = openAiUsage(usage);
  return chunk;
}

export type OpenAiErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'server_error' | 'timeout_error' | 'insufficient_quota';

export function openAiError(status: number, message: string, type: OpenAiErrorType, code: string | null, param: string | null = null): Response {
  return jsonResponse(status, { error: { message, type, param, code } });
}

/** A goondan error (a turn that failed, an agent that cannot start …) in OpenAI's shape. */
export function openAiErrorFrom(status: number, error: ErrorShape): Response {
  const type: OpenAiErrorType = status === 504 ? 'timeout_error' : status === 429 ? 'insufficient_quota' : status < 500 ? 'invalid_request_error' : 'server_error';
  const message = error.suggestion ? `${error.message} (${error.suggestion})` : error.message;
  return openAiError(status, message, type, error.code);
}
