/**
 * Splits a reply into pieces a provider accepts (Telegram 4096, Discord 2000 characters, …):
 * at the last line break or space before the limit (if it is in the second half), else hard —
 * never inside a surrogate pair. Lengths are UTF-16 code units, which is how these providers count.
 */
export function splitMessage(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    let cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    if (cut < limit / 2) cut = limit;
    const code = rest.charCodeAt(cut - 1);
    if (cut === limit && code >= 0xd800 && code <= 0xdbff) cut -= 1;
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^[ \n]+/, '');
  }
  if (rest !== '' || pieces.length === 0) pieces.push(rest);
  return pieces.filter((piece, i) => piece !== '' || i === 0);
}
