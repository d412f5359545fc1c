/**
 * Keyword search over catalog items (pure). Query and tool names are split into lowercase words
 * (`file-system__read` → file, system, read); a word naming part of a tool counts most, a word
 * inside a name next, a word in the description least. Any word may match (the model searches
 * with loose phrases); more matching words rank higher, ties keep catalog order. A match shows the
 * tool's display name and result schema (`returns`) when it declares them.
 */
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { ToolCatalogItem } from '../../../../shared/types/tools.ts';

export interface SearchMatch {
  name: string;
  description: string;
  score: number;
  /** The export's display name, when it declares one. */
  displayName?: string;
  /** The JSON Schema of its result (`returns`), when declared: the model can plan with the shape. */
  returns?: JsonObject;
}

const NAME_WORD = 3;
const NAME_PART = 2;
const DESCRIPTION_WORD = 1;
const MAX_DESCRIPTION = 300;

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

export function searchCatalog(catalog: readonly ToolCatalogItem[], query: string, maxResults: number): SearchMatch[] {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const scored: SearchMatch[] = [];
  for (const item of catalog) {
    const name = item.name.toLowerCase();
    const nameWords = new Set(words(item.name));
    const description = (item.description ?? '').toLowerCase();
    const descriptionWords = new Set(words(description));
    let score = 0;
    for (const term of terms) {
      if (nameWords.has(term)) score += NAME_WORD;
      else if (name.includes(term)) score += NAME_PART;
      if (descriptionWords.has(term)) score += DESCRIPTION_WORD;
    }
    if (score === 0) continue;
    const match: SearchMatch = { name: item.name, description: shorten(item.description ?? ''), score };
    if (item.displayName !== undefined) match.displayName = item.displayName;
    if (item.returns !== undefined) match.returns = item.returns;
    scored.push(match);
  }
  // Array.prototype.sort is stable: equal scores keep catalog order.
  return scored.sort((a, b) => b.score - a.score).slice(0, maxResults);
}

function shorten(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}
