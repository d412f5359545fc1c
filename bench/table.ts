/** How the benches print their figures: a line of the machine's load, then a table of columns padded to their widest cell. */
import { loadavg } from 'node:os';

/** `load average 1.20 2.00 3.10 on 2 cores`: the figures depend on it (the machines are shared). */
export function loadAverageLine(): string {
  return `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${navigator.hardwareConcurrency} cores`;
}

/** Prints `rows` (the first is the header) with each column as wide as its widest cell, two spaces apart. */
export function printTable(rows: readonly string[][]): void {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
}
