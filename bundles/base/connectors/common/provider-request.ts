/**
 * One HTTP call to a chat provider's API, with bounded retries: network errors, 5xx, 408 and
 * 429 are retried with backoff (honouring Retry-After), anything else fails at once. Every
 * message that leaves this file has the credentials cut out — Telegram puts its token in the
 * URL, and fetch errors quote URLs.
 */
import type { Logger } from '../../../../shared/types/index.ts';
import { ConnectorError } from './connector-error.ts';
import { MAX_RETRY_AFTER_MS, backoffDelay, parseRetryAfter, sleep, type RetryPolicy } from './retry-policy.ts';

export interface ProviderRequest {
  /** Names the call in logs and errors, e.g. "telegram sendMessage"; never holds a credential. */
  label: string;
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
}

export type Attempt =
  | { kind: 'ok'; body: unknown }
  | { kind: 'failed'; retryable: boolean; message: string; status?: number; retryAfterMs?: number };

/** Judges a provider's answer; providers that report errors inside a 200 supply their own. */
export type Interpret = (status: number, body: unknown, headers: Headers) => Attempt;

export interface ProviderCallContext {
  signal: AbortSignal;
  /** Strings cut out of every message (tokens, secrets). */
  secrets: readonly string[];
  interpret?: Interpret;
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

export const interpretHttpStatus: Interpret = (status, body, headers) => {
  if (status >= 200 && status < 300) return { kind: 'ok', body };
  const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
  const detail = typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body)?.slice(0, 200);
  const message = `HTTP ${status}${detail ? `: ${detail}` : ''}`;
  const retryable = status === 408 || status === 429 || status >= 500;
  return { kind: 'failed', retryable, message, status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
};

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One attempt; never throws (an abort of the caller's signal is a non-retryable failure). */
export async function attemptRequest(request: ProviderRequest, context: ProviderCallContext): Promise<Attempt> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(request.timeoutMs ?? 30_000)]),
    });
    const body = await readBody(response);
    return (context.interpret ?? interpretHttpStatus)(response.status, body, response.headers);
  } catch (error) {
    const message = redact(error instanceof Error ? error.message : String(error), context.secrets);
    return { kind: 'failed', retryable: !context.signal.aborted, message: context.signal.aborted ? 'aborted' : `network error: ${message}` };
  }
}

/** Up to `policy.attempts` tries; resolves with the provider's body or throws E_PROVIDER_API. */
export async function requestWithRetry(request: ProviderRequest, context: ProviderCallContext & { policy: RetryPolicy; logger: Logger }): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptRequest(request, context);
    if (outcome.kind === 'ok') return outcome.body;
    const message = redact(outcome.message, context.secrets);
    const tooLong = (outcome.retryAfterMs ?? 0) > MAX_RETRY_AFTER_MS;
    if (!outcome.retryable || tooLong || attempt >= context.policy.attempts) {
      throw new ConnectorError('E_PROVIDER_API', `${request.label} failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${message}`);
    }
    const delayMs = backoffDelay(context.policy, attempt, outcome.retryAfterMs);
    context.logger.warn({ call: request.label, attempt, status: outcome.status ?? null, delayMs, error: message }, 'provider call failed; retrying');
    if (!(await sleep(delayMs, context.signal))) throw new ConnectorError('E_CONNECTOR_ABORTED', `${request.label} abandoned: the connection is shutting down`);
  }
}
