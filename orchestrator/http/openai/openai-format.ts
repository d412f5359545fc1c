/**
 * OpenAI's wire shapes for the compatible front door: chat.completion, chat.completion.chunk,
 * model lists and the `{error: {message, type, param, code}}` body — what the official clients
 * and chat UIs parse.
 */
import { type ErrorShape, httpStatusOf } from '../../../shared/errors/index.ts';
import type { JsonObject } from '../../../shared/types/json.ts';
import type { TokenUsage } from '../../../shared/types/turns.ts';
import { jsonResponse, retryAfter } from '../http-errors.ts';

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

export type OpenAiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'server_error'
  | 'timeout_error'
  | 'insufficient_quota';

/** The routes of the front door: every error they answer (auth and method included) is in OpenAI's shape. */
export function isOpenAiPath(path: string): boolean {
  return path === '/v1/models' || path === '/v1/chat/completions';
}

export function openAiError(status: number, message: string, type: OpenAiErrorType, code: string | null, param: string | null = null): Response {
  return jsonResponse(status, { error: { message, type, param, code } });
}

/** A goondan error (a turn that failed, a wrong token, an agent that cannot start …) in OpenAI's shape. */
export function openAiErrorFrom(status: number, error: ErrorShape): Response {
  return jsonResponse(status, openAiErrorBody(status, error), retryAfter(status, error));
}

/** `{error: {message, type, param, code}}`: the body of an error response, or the data of a stream's error event. */
export function openAiErrorBody(status: number, error: ErrorShape): JsonObject {
  const message = error.suggestion ? `${error.message} (${error.suggestion})` : error.message;
  const param = typeof error.details?.path === 'string' ? error.details.path : null;
  return { error: { message, type: openAiErrorType(status), param, code: error.code } };
}

function openAiErrorType(status: number): OpenAiErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'insufficient_quota';
  if (status === 504) return 'timeout_error';
  return status < 500 ? 'invalid_request_error' : 'server_error';
}

/**
 * The status of a turn that did not answer ok: where no turn answered (the agent cannot start, …)
 * the error's own; a budget refusal is the caller's quota (429, as OpenAI answers exhausted quota),
 * not a server fault; any other failed turn is a 500. Streamed or not, the same.
 */
export function failedTurnStatus(outcome: { turnId?: string; error?: ErrorShape }): number {
  if (!outcome.error) return 500;
  return outcome.turnId === undefined || outcome.error.code === 'BUDGET_EXCEEDED' ? httpStatusOf(outcome.error) : 500;
}
