/**
 * Model.spec.rateLimit's limiter on a manual clock: buckets hold one second's share (no burst),
 * tokens are charged when a call ends, maxConcurrent caps calls in flight, a 429 pauses everyone,
 * and calls go in arrival order.
 */
import { describe, expect, test } from 'bun:test';
import { ModelRateLimiter } from '../../orchestrator/usage/model-rate-limiter.ts';
import type { ModelRateLimit } from '../../shared/types/resources.ts';
import { ManualClock } from './helpers/manual-clock.ts';

/** Starts `n` acquisitions and records when (on the manual clock) each is admitted. */
function contenders(limiter: ModelRateLimiter, clock: ManualClock, n: number): number[] {
  const admitted: number[] = [];
  for (let i = 0; i < n; i += 1) void limiter.acquire().then(() => admitted.push(clock.time));
  return admitted;
}

function limiterOf(limits: ModelRateLimit): { limiter: ModelRateLimiter; clock: ManualClock } {
  const clock = new ManualClock();
  return { limiter: new ModelRateLimiter(limits, clock), clock };
}

describe('requestsPerMinute: a bucket of one second\'s share', () => {
  test('requestsPerMinute: 6 admits one call at once and then one every 10 s — never a burst of 6', async () => {
    const { limiter, clock } = limiterOf({ requestsPerMinute: 6 });
    const admitted = contenders(limiter, clock, 3);
    await clock.advance(0);
    expect(admitted).toEqual([0]);
    await clock.advance(9_999);
    expect(admitted).toEqual([0]);
    await clock.advance(30_000);
    expect(admitted).toEqual([0, 10_000, 20_000]);
  });

  test('requestsPerMinute: 600 holds 10 calls (one second\'s share) and refills at 10 a second', async () => {
    const { limiter, clock } = limiterOf({ requestsPerMinute: 600 });
    const admitted = contenders(limiter, clock, 12);
    await clock.advance(0);
    expect(admitted).toHaveLength(10);
    await clock.advance(200);
    expect(admitted.slice(10)).toEqual([100, 200]);
  });
});

describe('tokensPerMinute: charged with real usage when the call ends', () => {
  test('a call that used more than the bucket holds puts it in debt; the next call waits until it is paid back', async () => {
    const { limiter, clock } = limiterOf({ tokensPerMinute: 6_000 }); // 100 tokens a second, 100 held
    const first = contenders(limiter, clock, 1);
    await clock.advance(0);
    expect(first).toEqual([0]);
    limiter.release(1_000); // 900 in debt: 9 s to pay back
    const second = contenders(limiter, clock, 1);
    await clock.advance(8_999);
    expect(second).toEqual([]);
    await clock.advance(2);
    expect(second).toHaveLength(1);
  });
});

describe('maxConcurrent and the shared 429 pause', () => {
  test('maxConcurrent: 2 lets a third call go only when one ends', async () => {
    const { limiter, clock } = limiterOf({ maxConcurrent: 2 });
    const admitted = contenders(limiter, clock, 3);
    await clock.advance(0);
    expect(admitted).toHaveLength(2);
    await clock.advance(60_000);
    expect(admitted).toHaveLength(2);
    limiter.release(0);
    await clock.advance(0);
    expect(admitted).toHaveLength(3);
  });

  test('a pause holds every caller until Retry-After has passed; then they go in arrival order', async () => {
    const { limiter, clock } = limiterOf({});
    limiter.pause(2_000);
    const order: string[] = [];
    void limiter.acquire().then(() => order.push(`a@${clock.time}`));
    void limiter.acquire().then(() => order.push(`b@${clock.time}`));
    await clock.advance(1_999);
    expect(order).toEqual([]);
    expect(limiter.pausedFor()).toBe(1);
    await clock.advance(1);
    expect(order).toEqual(['a@2000', 'b@2000']);
  });
});
