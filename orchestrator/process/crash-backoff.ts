/**
 * Crash-loop backoff (ARCHITECTURE §5): crashes 1–5 respawn at once; crash n ≥ 6 waits
 * min(base·2^(n−6), max) ms. A completed turn resets the count (SPEC.md §2.2 [M]).
 */
export interface BackoffPolicy {
  immediateRestarts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { immediateRestarts: 5, baseMs: 1000, maxMs: 300_000 };

/** Shortened intervals for tests and impatient operators: `GOONDAN_BACKOFF_BASE_MS`, `GOONDAN_BACKOFF_MAX_MS`. */
export function backoffPolicyFromEnv(env: Record<string, string | undefined>): BackoffPolicy {
  const positive = (value: string | undefined, fallback: number) => {
    const n = Number(value);
    return Number.isFinite(n) && n > 0 ? n : fallback;
  };
  return {
    immediateRestarts: DEFAULT_BACKOFF.immediateRestarts,
    baseMs: positive(env.GOONDAN_BACKOFF_BASE_MS, DEFAULT_BACKOFF.baseMs),
    maxMs: positive(env.GOONDAN_BACKOFF_MAX_MS, DEFAULT_BACKOFF.maxMs),
  };
}

/** Delay before the respawn that follows crash number `consecutiveCrashes` (1-based). */
export function backoffDelayMs(consecutiveCrashes: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  if (consecutiveCrashes <= policy.immediateRestarts) return 0;
  const exponent = consecutiveCrashes - policy.immediateRestarts - 1;
  return Math.min(policy.baseMs * 2 ** exponent, policy.maxMs);
}
