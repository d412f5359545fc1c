/**
 * Keys that appear more than once in the top-level object of a JSON text (JSON.parse silently keeps
 * the last one, so a log line with two `pid`s would hide the first).
 */
export function duplicateTopLevelKeys(text: string): string[] {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const raw = text.slice(i, end + 1);
      let after = end + 1;
      while (text[after] === ' ') after += 1;
      if (depth === 1 && text[after] === ':') {
        const key = JSON.parse(raw) as string;
        if (seen.has(key)) duplicates.push(key);
        seen.add(key);
      }
      i = end + 1;
      continue;
    }
    if (ch === '{' || ch === '[') depth += 1;
    else if (ch === '}' || ch === ']') depth -= 1;
    i += 1;
  }
  return duplicates;
}
