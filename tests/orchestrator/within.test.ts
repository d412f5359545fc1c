/** shared/within.ts: a wait bounded by a timer that never outlives it. */
import { describe, expect, test } from 'bun:test';
import { within } from '../../shared/within.ts';

describe('within', () => {
  test('the promise’s value when it settles first, the late value when the time runs out first', async () => {
    expect(await within(Promise.resolve('answer'), 1_000, () => 'late')).toBe('answer');
    expect(await within(new Promise<string>(() => {}), 10, () => 'late')).toBe('late');
  });

  test('a rejection that comes first is the outcome', async () => {
    await expect(within(Promise.reject(new Error('broke')), 1_000, () => 'late')).rejects.toThrow('broke');
  });

  test('the timer is cleared once the promise settled: late() never runs', async () => {
    let lateCalls = 0;
    await within(Promise.resolve(1), 20, () => ++lateCalls);
    await Bun.sleep(60);
    expect(lateCalls).toBe(0);
  });
});
