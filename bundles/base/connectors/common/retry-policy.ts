/**
 * Bounded exponential backoff for calls to a chat provider: retry n waits base·2^(n−1) (capped,
 * with ±20 % jitter so replies that failed together do not retry together), and a provider's
 * Retry-After wins when it asks for longer.
 */
import type { SettingsSource } from './connector-settings.ts';
import { numberSetting } from './connector-settings.ts';

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** The longest Retry-After honoured; a provider asking for more is given up on. */
export const MAX_RETRY_AFTER_MS = 300_000;

export function retryPolicyFrom(source: SettingsSource, connector: string): RetryPolicy {
  return {
    attempts: numberSetting(source, ['retryAttempts'], 5, connector, { min: 1, max: 20 }),
    baseDelayMs: numberSetting(source, ['retryBaseMs'], 1000, connector, { min: 0, max: 60_000 }),
    maxDelayMs: numberSetting(source, ['retryMaxMs'], 30_000, connector, { min: 0, max: MAX_RETRY_AFTER_MS }),
  };
}

export function backoffDelay(policy: RetryPolicy, retry: number, retryAfterMs?: number): number {
  const exponential = Math.min(policy.baseDelayMs * 2 ** Math.max(0, retry - 1), policy.maxDelayMs);
  const jittered = exponential * (0.8 + Math.random() * 0.4);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

/** `Retry-After` as seconds (integer or decimal) or an HTTP date, in milliseconds. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds * 1000));
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits, or returns false at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
