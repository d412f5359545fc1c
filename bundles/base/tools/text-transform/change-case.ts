/**
 * Letter-case conversions. Words are found the way identifiers are read: `parseHTTPResponse`,
 * `parse_http_response` and `Parse HTTP response` all give parse / HTTP / response. Scripts
 * without case (Hangul, Han, …) form words of their own.
 */

export type CaseStyle = 'upper' | 'lower' | 'title' | 'snake' | 'kebab' | 'camel';

// Digits stay with the letters before them: `v2`, `HTTP2Server` → HTTP2 / Server.
const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+\p{N}*|\p{Lu}+\p{N}*|\p{N}+|[\p{Lo}\p{Lm}\p{Lt}\p{M}]+\p{N}*/gu;

export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

function capitalize(word: string): string {
  const [first = '', ...rest] = Array.from(word);
  return first.toUpperCase() + rest.join('').toLowerCase();
}

export function changeCase(text: string, to: CaseStyle): string {
  switch (to) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'title':
      // Keeps spacing and punctuation; only the words change.
      return text.replace(/[\p{L}\p{M}][\p{L}\p{M}\p{N}'’]*/gu, capitalize);
    case 'snake':
      return words(text).map((word) => word.toLowerCase()).join('_');
    case 'kebab':
      return words(text).map((word) => word.toLowerCase()).join('-');
    case 'camel':
      return words(text).map((word, i) => (i === 0 ? word.toLowerCase() : capitalize(word))).join('');
  }
}
