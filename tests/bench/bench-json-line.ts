/**
 * The figures a bench prints last: one JSON object on its final stdout line. A smoke run's figures
 * are not judged, only that they are there and are numbers: NaN or ±Infinity (`null` once
 * JSON.stringify has written them) mean a sample list was empty or a floor was zero.
 */

/** The last stdout line parsed as a JSON object; undefined when it is not one. */
export function benchJsonLine(stdout: string): Record<string, unknown> | undefined {
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  try {
    const parsed: unknown = JSON.parse(last);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: undefined
  }
  return undefined;
}

/** The value at a dotted path (array indexes as numbers: `results.0.coreP50`). */
function valueAt(value: unknown, path: string): unknown {
  let here = value;
  for (const key of path.split('.')) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

function nonFiniteLeaves(value: unknown, path: string): string[] {
  if (value === null) return [`${path} is null (NaN or Infinity before JSON)`];
  if (typeof value === 'number' && !Number.isFinite(value)) return [`${path} is ${value}`];
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => nonFiniteLeaves(child, path === '' ? key : `${path}.${key}`));
}

/** What is wrong with `figures`: each of `promised` missing or not a finite number, and any null or non-finite leaf. */
export function figureProblems(figures: Record<string, unknown>, promised: readonly string[]): string[] {
  const missing = promised.flatMap((path) => {
    const value = valueAt(figures, path);
    return typeof value === 'number' && Number.isFinite(value) ? [] : [`${path} is ${JSON.stringify(value) ?? 'missing'}, not a finite number`];
  });
  return [...missing, ...nonFiniteLeaves(figures, '')];
}
