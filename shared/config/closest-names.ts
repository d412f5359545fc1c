/** "Did you mean …?" candidates by edit distance (Levenshtein). */

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const left = previous[j - 1] ?? 0;
      previous[j] = Math.min(above + 1, left + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/** Up to `limit` candidates close to `target` (distance ≤ max(2, a third of its length)), closest first. */
export function closestNames(target: string, candidates: Iterable<string>, limit = 3): string[] {
  const lower = target.toLowerCase();
  const threshold = Math.max(2, Math.floor(target.length / 3));
  const scored: Array<{ name: string; distance: number }> = [];
  for (const name of new Set(candidates)) {
    const distance = editDistance(lower, name.toLowerCase());
    const contains = lower.length >= 3 && (name.toLowerCase().includes(lower) || lower.includes(name.toLowerCase()));
    if (distance <= threshold || contains) scored.push({ name, distance: contains ? Math.min(distance, threshold) : distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  return scored.slice(0, limit).map((s) => s.name);
}

/** `did you mean "a" or "b"?` or undefined when nothing is close. */
export function didYouMean(target: string, candidates: Iterable<string>): string | undefined {
  const close = closestNames(target, candidates);
  if (close.length === 0) return undefined;
  return `did you mean ${close.map((c) => JSON.stringify(c)).join(' or ')}?`;
}
