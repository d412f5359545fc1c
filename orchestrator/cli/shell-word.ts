/** A path or word as a user can paste it into a POSIX shell (single-quoted only when needed). */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
