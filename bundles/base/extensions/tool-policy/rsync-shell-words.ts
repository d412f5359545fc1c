/**
 * How rsync splits its remote shell command (`-e COMMAND`, `--rsh=COMMAND`, RSYNC_RSH) into the
 * program it runs and its arguments, without a shell (main.c `do_cmd`, checked by running rsync
 * 3.5.0): words end at a space — only a space, not a tab or a newline; `'…'` and `"…"` group,
 * anywhere in a word, and inside one the same quote doubled (`''` in `'…'`) is that quote. Nothing
 * else is special: no backslashes, comments, assignments, expansions or operators, so
 * `#x rm -rf /` runs the program `#x` and `X=1 ssh` the program `X=1`.
 * Undefined for an unclosed quote, which rsync refuses ("Missing trailing-' in remote-shell command")
 * before it runs anything.
 */
export function rsyncShellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i += 1;
      continue;
    }
    let word = '';
    let quote: string | undefined;
    for (; i < text.length && (quote !== undefined || text[i] !== ' '); i++) {
      const c = text[i] ?? '';
      if (quote === undefined && (c === "'" || c === '"')) quote = c;
      else if (c === quote && text[i + 1] === quote) word += text[++i];
      else if (c === quote) quote = undefined;
      else word += c;
    }
    if (quote !== undefined) return undefined;
    words.push(word);
  }
  return words;
}
