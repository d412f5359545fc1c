/**
 * Pricing and the orchestrator's usage ledger: cached input at its own price, each step counted
 * once however often it is reported, per-trace totals across agents, UTC days that roll over and
 * survive a restart.
 */
import { afterAll, describe, expect, spyOn, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageLedger } from '../../orchestrator/usage/usage-ledger.ts';
import { priceUsage } from '../../shared/usage/price-usage.ts';
import { waitUntil } from '../helpers/wait-for.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });

describe('Model.spec.pricing', () => {
  test('input, cached input and output tokens each at their price per million', () => {
    const pricing = { inputPerMillionTokens: 2, outputPerMillionTokens: 10, cachedInputPerMillionTokens: 0.5, currency: 'USD' };
    const cost = priceUsage(pricing, { ...usage(1_000_000, 100_000), cachedPromptTokens: 400_000 });
    expect(cost?.currency).toBe('USD');
    expect(cost?.amount).toBeCloseTo(0.6 * 2 + 0.4 * 0.5 + 0.1 * 10, 10);
  });

  test('without a cached price, cached tokens cost the input price; without pricing there is no cost', () => {
    expect(priceUsage({ inputPerMillionTokens: 2, outputPerMillionTokens: 10, currency: 'EUR' }, { ...usage(1_000_000, 0), cachedPromptTokens: 500_000 })?.amount).toBeCloseTo(2, 10);
    expect(priceUsage(undefined, usage(10, 10))).toBeUndefined();
  });
});

describe('UsageLedger', () => {
  test('past 10,000 steps a new step still costs no walk over the remembered ones (it is on the path of every model call)', () => {
    const ledger = new UsageLedger(undefined);
    const step = (i: number) => ({ stepId: `s${i}`, agent: 'a', instanceKey: 'k', traceId: `t${i % 50}`, usage: usage(1, 1) });
    for (let i = 0; i < 10_000; i++) ledger.record(step(i));
    const walks = spyOn(Set.prototype, 'values');
    try {
      for (let i = 10_000; i < 10_100; i++) expect(ledger.record(step(i))).toBe(true);
      expect(walks).not.toHaveBeenCalled();
    } finally {
      walks.mockRestore();
    }
    // The oldest steps were forgotten, the recent ones are still counted once.
    expect(ledger.record(step(10_099))).toBe(false);
    expect(ledger.instance('a', 'k')?.calls).toBe(10_100);
  });

  test('a step reported twice (admission release and step.completed) counts once', () => {
    const ledger = new UsageLedger(undefined);
    const step = { stepId: 's1', agent: 'a', instanceKey: 'k', traceId: 't', usage: usage(10, 5), cost: { amount: 0.1, currency: 'USD' } };
    expect(ledger.record(step)).toBe(true);
    expect(ledger.record(step)).toBe(false);
    expect(ledger.instance('a', 'k')).toMatchObject({ calls: 1, promptTokens: 10, completionTokens: 5, cost: { USD: 0.1 } });
  });

  test('a trace sums every agent it reached; day totals are per instance key and for the swarm', () => {
    const ledger = new UsageLedger(undefined);
    ledger.record({ stepId: 's1', agent: 'a', instanceKey: 'k1', traceId: 't', usage: usage(10, 5) });
    ledger.record({ stepId: 's2', agent: 'b', instanceKey: 'k2', traceId: 't', usage: usage(20, 5) });
    expect(ledger.trace('t')).toMatchObject({ calls: 2, promptTokens: 30, completionTokens: 10 });
    expect(ledger.instanceToday('k1').promptTokens).toBe(10);
    expect(ledger.swarmToday().promptTokens).toBe(30);
  });

  test('day totals start from zero on the next UTC day, and a new ledger on the same file continues the day', () => {
    let now = new Date('2026-03-01T23:59:00Z');
    const file = join(dir, 'usage-today.json');
    const ledger = new UsageLedger(file, () => now);
    ledger.record({ stepId: 's1', agent: 'a', instanceKey: 'k', traceId: 't1', usage: usage(10, 5) });
    ledger.flush();
    expect(new UsageLedger(file, () => now).swarmToday().promptTokens).toBe(10);
    now = new Date('2026-03-02T00:00:01Z');
    expect(ledger.swarmToday().promptTokens).toBe(0);
    expect(new UsageLedger(file, () => now).swarmToday().promptTokens).toBe(0);
  });

  test('the day file is written once per DAY_FILE_SAVE_MS, not per step, and flush() writes what is pending', async () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const file = join(dir, 'debounced.json');
    const ledger = new UsageLedger(file, () => now);
    for (let i = 0; i < 50; i++) ledger.record({ stepId: `d${i}`, agent: 'a', instanceKey: `k${i}`, traceId: 't', usage: usage(1, 1) });
    // Nothing written yet: 50 steps did not rewrite a file that grows with every instance key.
    expect(existsSync(file)).toBe(false);
    await waitUntil(() => existsSync(file), 'the debounced day file', 30_000);
    expect(new UsageLedger(file, () => now).swarmToday().promptTokens).toBe(50);
    ledger.record({ stepId: 'late', agent: 'a', instanceKey: 'k', traceId: 't', usage: usage(7, 1) });
    ledger.flush();
    expect(new UsageLedger(file, () => now).swarmToday().promptTokens).toBe(57);
  });
});
