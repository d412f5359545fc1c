/**
 * The allow pattern a verdict suggests for a copy to or from another machine: the command as
 * written with each remote kept and every run of other words between them made `*`
 * (`scp h:a .` → `scp h:a *`, `scp -r src h:/srv/` → `scp * h:/srv/`, `sftp h` → `sftp h`), so
 * that the pattern, put in an allow rule, covers the very line it was suggested for.
 */
import { allowingMatch } from './command-patterns.ts';
import type { ShellCommand } from './shell-analysis.ts';

/** Where `word` stands as a whole word of `text` (spaces around it or an end), from `from` on; -1 when it does not. */
function wordIndex(text: string, word: string, from: number): number {
  for (let at = text.indexOf(word, from); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = at === 0 || text[at - 1] === ' ';
    const after = at + word.length === text.length || text[at + word.length] === ' ';
    if (before && after) return at;
  }
  return -1;
}

export function remoteCopyPattern(command: ShellCommand): string {
  const space = command.written.indexOf(' ');
  const program = space < 0 ? command.written : command.written.slice(0, space);
  const rest = space < 0 ? '' : command.written.slice(space + 1);
  const parts = [program];
  let at = 0;
  for (const remote of command.remotes ?? []) {
    const found = wordIndex(rest, remote, at);
    if (found < 0) continue;
    if (rest.slice(at, found).trim() !== '') parts.push('*');
    // Pattern words are split at blanks: a blank inside a remote becomes `?`, which matches it.
    parts.push(remote.replace(/\s/g, '?'));
    at = found + remote.length;
  }
  if (rest.slice(at).trim() !== '') parts.push('*');
  const pattern = parts.join(' ');
  // A command word with a blank in it, or remotes in another order: the command as written is such a pattern too.
  return allowingMatch(pattern, command) ? pattern : command.written;
}
