/**
 * Smoke mode of the benches: with GOONDAN_BENCH_SMOKE=1 every bench runs each of its code paths
 * once or twice (1–3 iterations, a few keys, short pauses) and prints its table and JSON line in
 * seconds, so tests/bench/bench-smoke.test.ts can run them all and a bench that breaks or hangs
 * fails a test instead of rotting until the next measuring round. A smoke run's figures mean
 * nothing; without the variable every count is the full one.
 */

export const BENCH_SMOKE_ENV = 'GOONDAN_BENCH_SMOKE';

export const BENCH_SMOKE = process.env[BENCH_SMOKE_ENV] === '1';

/** A count, duration or list of a bench: `full` in a real run, `smoke` under GOONDAN_BENCH_SMOKE=1. */
export function fullOrSmoke<T>(full: T, smoke: T): T {
  return BENCH_SMOKE ? smoke : full;
}
