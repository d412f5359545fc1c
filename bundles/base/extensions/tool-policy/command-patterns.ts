/**
 * Command patterns (`rm *`, `git *`, `python3 -c *`) matched against the commands a line would
 * run. `*` spans anything; a trailing ` *` also matches the bare command (`rm *` matches `rm`).
 * deny/ask see the program name (`/bin/rm x` is `rm x`); allow sees the command word as written
 * (`./git status` is not `git status`). An opaque command is allowed only by a pattern whose first
 * word is its program, literally (`python3 *` allows `python3 -c …`; `*` and `py* *` do not); a
 * copy to or from another machine only by a pattern with a word that spells each remote, a `:` in it
 * (`rsync * backup:*` allows `rsync -a x backup:y`; `rsync *` does not) — or, for sftp's bare
 * `host`, a word that is not only wildcards (`sftp backup`).
 */
import type { ShellCommand } from './shell-analysis.ts';

/** Shell operators in a pattern: it is about the whole line, not one command. */
export const SHELL_OPERATORS = /&&|\|\||[;|&\n]|\$\(|`/;

export function wildcard(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*+/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 's');
}

function commandRegex(pattern: string): RegExp {
  if (!pattern.endsWith(' *')) return wildcard(pattern);
  const head = wildcard(pattern.slice(0, -2)).source.slice(1, -1);
  return new RegExp(`^${head}(?: .*)?$`, 's');
}

const cache = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = commandRegex(pattern);
    cache.set(pattern, regex);
  }
  return regex;
}

/** Does a deny/ask pattern match this command? */
export function restrictingMatch(pattern: string, command: ShellCommand): boolean {
  const regex = compiled(pattern);
  return regex.test(command.text) || regex.test(command.written);
}

/** Does a word of the pattern after its first, one with a `:` (a bare `host`: with a character not a wildcard), match the remote? */
function spellsRemote(pattern: string, remote: string): boolean {
  const spells = (word: string) => (remote.includes(':') ? word.includes(':') : /[^*?]/.test(word));
  return pattern.trim().split(/\s+/).slice(1).some((word) => spells(word) && wildcard(word).test(remote));
}

/** Does an allow pattern cover this command? */
export function allowingMatch(pattern: string, command: ShellCommand): boolean {
  if (!compiled(pattern).test(command.written)) return false;
  if (command.remotes && !command.remotes.every((remote) => spellsRemote(pattern, remote))) return false;
  if (!command.opaque) return true;
  const [program = ''] = pattern.trim().split(/\s+/);
  return !/[*?]/.test(program) && program === command.written.split(' ')[0];
}

/** A whole-line deny/ask pattern (`curl * | sh`) against the raw line. */
export const lineMatch = (pattern: string, line: string): boolean => compiled(pattern).test(line.trim());
