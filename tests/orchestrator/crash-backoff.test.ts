import { describe, expect, test } from 'bun:test';
import { DEFAULT_BACKOFF, backoffDelayMs, backoffPolicyFromEnv } from '../../orchestrator/process/crash-backoff.ts';

describe('crash backoff (ARCHITECTURE §5)', () => {
  test('crashes 1 to 5 respawn at once', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n))).toEqual([0, 0, 0, 0, 0]);
  });

  test('crash n >= 6 waits 1000 * 2^(n-6) ms', () => {
    expect([6, 7, 8, 9].map((n) => backoffDelayMs(n))).toEqual([1000, 2000, 4000, 8000]);
  });

  test('the wait is capped at 300000 ms', () => {
    expect(backoffDelayMs(30)).toBe(300_000);
    expect(backoffDelayMs(1000)).toBe(300_000);
  });

  test('environment overrides shorten the schedule and ignore nonsense', () => {
    const policy = backoffPolicyFromEnv({ GOONDAN_BACKOFF_BASE_MS: '50', GOONDAN_BACKOFF_MAX_MS: '300' });
    expect([5, 6, 7, 8, 9, 10].map((n) => backoffDelayMs(n, policy))).toEqual([0, 50, 100, 200, 300, 300]);
    expect(backoffPolicyFromEnv({ GOONDAN_BACKOFF_BASE_MS: 'fast', GOONDAN_BACKOFF_MAX_MS: '-1' })).toEqual(DEFAULT_BACKOFF);
  });
});
