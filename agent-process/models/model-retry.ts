/**
 * Retries of a model call, as the AI SDK's `generateText` did them: an `APICallError` the provider
 * marks retryable (429, 5xx, network failures) is retried up to `maxRetries` times with exponential
 * backoff (2 s, 4 s, …), or after the server's `retry-after-ms` / `retry-after` when that is under
 * a minute. Aborts are never retried. The provider package is loaded only when a call failed.
 */
import { abortableSleep } from './abortable-sleep.ts';

export interface RetryOptions {
  maxRetries: number;
  abortSignal?: AbortSignal;
  /** First backoff delay (default 2000 ms), doubled after each attempt. */
  initialDelayMs?: number;
}

/** A model call that failed after retries; `errors` holds every attempt's error, the last one last. */
export class ModelRetryError extends Error {
  override name = 'ModelRetryError';
  constructor(
    message: string,
    readonly errors: unknown[],
    readonly reason: 'maxRetriesExceeded' | 'errorNotRetryable',
  ) {
    super(message);
  }
  get lastError(): unknown {
    return this.errors[this.errors.length - 1];
  }
}

const MAX_SERVER_DELAY_MS = 60_000;

export async function withModelRetries<T>(attempt: () => PromiseLike<T>, options: RetryOptions): Promise<T> {
  const errors: unknown[] = [];
  let backoffMs = options.initialDelayMs ?? 2_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (isAbort(error) || options.maxRetries === 0) throw error;
      errors.push(error);
      const retryable = await isRetryable(error);
      if (errors.length > options.maxRetries) {
        throw new ModelRetryError(`Failed after ${errors.length} attempts. Last error: ${messageOf(error)}`, errors, 'maxRetriesExceeded');
      }
      if (!retryable) {
        if (errors.length === 1) throw error;
        throw new ModelRetryError(`Failed after ${errors.length} attempts with non-retryable error: '${messageOf(error)}'`, errors, 'errorNotRetryable');
      }
      await abortableSleep(serverDelayMs(error, backoffMs), options.abortSignal);
      backoffMs *= 2;
    }
  }
}

async function isRetryable(error: unknown): Promise<boolean> {
  const { APICallError } = await import('@ai-sdk/provider');
  return APICallError.isInstance(error) && error.isRetryable;
}

function serverDelayMs(error: unknown, backoffMs: number): number {
  const headers = typeof error === 'object' && error !== null && 'responseHeaders' in error ? error.responseHeaders : undefined;
  if (typeof headers !== 'object' || headers === null) return backoffMs;
  const header = (name: string): string | undefined => {
    const value: unknown = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return typeof value === 'string' ? value : undefined;
  };
  let ms: number | undefined;
  const retryAfterMs = header('retry-after-ms');
  if (retryAfterMs !== undefined && !Number.isNaN(Number.parseFloat(retryAfterMs))) ms = Number.parseFloat(retryAfterMs);
  const retryAfter = header('retry-after');
  if (ms === undefined && retryAfter !== undefined) {
    const seconds = Number.parseFloat(retryAfter);
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
  }
  if (ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < MAX_SERVER_DELAY_MS || ms < backoffMs)) return ms;
  return backoffMs;
}

export function isAbort(error: unknown): boolean {
  return (error instanceof Error || error instanceof DOMException) && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
