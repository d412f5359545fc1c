/**
 * Perl's Text::ParseWords::shellwords, which programs written in Perl use to split a command given as
 * one string (`mosh --ssh=CMD`): words split at blanks; `"…"` and bare text drop a backslash before any
 * character; `'…'` keeps its backslashes (one only stops a `'` ending it). No expansions, no operators.
 * Undefined where shellwords gives up: an unbalanced quote or a trailing backslash.
 */
export function perlShellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word ??= '';
    if (c === '\\') {
      if (i + 1 >= text.length) return undefined;
      word += text[++i];
    } else if (c === "'" || c === '"') {
      const end = quoteEnd(text, i);
      if (end === undefined) return undefined;
      const body = text.slice(i + 1, end);
      word += c === '"' ? body.replace(/\\([\s\S])/g, '$1') : body;
      i = end;
    } else word += c;
  }
  return word === undefined ? words : [...words, word];
}

/** Where the quote opened at `start` closes; a backslash makes the next character part of the string. */
function quoteEnd(text: string, start: number): number | undefined {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return undefined;
}
