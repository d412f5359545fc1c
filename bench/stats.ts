/** Order statistics the benches print: the value at a rank of the sorted samples (no interpolation). */

/** The sample at the `p`th percentile (0–100): the sorted samples' index ⌊p/100 · n⌋, clamped; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}
