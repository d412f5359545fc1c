/**
 * An operand that names a file on another machine, as rsync and scp read one: `[user@]host:path`,
 * `[user@][v6addr]:path`, `[user@]host::module` (a colon before any slash), or a URL of the
 * program's own scheme (`rsync://[user@]host[:port]/…`, `scp://…`, `sftp://…`). A word only
 * known at run time still names one when its known beginning does (`host:"$path"`).
 */
import { type Word, literalWord, runtimeWord } from './shell-words.ts';

export interface Remote {
  word: Word;
  /** After `host:` (`host::`: the module and path; a URL: after the host and port). */
  path: Word;
  /** `host:path`, `host::module` (rsync's daemon), or `scheme://host/…`. */
  form: 'colon' | 'double-colon' | 'url';
  user?: string;
  host: string;
  port?: string;
}

/** `[user@]host:path`, `[user@]host::module`, `[user@][v6addr]:path`: a colon before any slash (rsync's and scp's own test). */
const HOST_SPEC = /^(?:([^@/:]*)@)?(\[[^\]/]*\]|[^:/]*):(:?)/;
const urlPattern = (scheme: string) => new RegExp(`^${scheme}://(?:([^@/]*)@)?(\\[[^\\]]*\\]|[^:/]*)(?::(\\d*))?`, 'i');

/** What is known of a word before the line runs: all of a literal one, else the text before its first expansion. */
export const knownPrefix = (word: Word) => (word.literal ? word.text : (word.text.replace(/["'\\]/g, '').split(/[$`]/)[0] ?? ''));

/** Where an operand names another machine, as the program with URL scheme `scheme` reads it. */
export function remoteOf(word: Word, scheme: string): Remote | undefined {
  const text = knownPrefix(word);
  const url = urlPattern(scheme).exec(text);
  const match = url ?? HOST_SPEC.exec(text);
  if (!match) return undefined;
  const form = url ? 'url' : match[3] ? 'double-colon' : 'colon';
  const path = word.literal ? literalWord(word.text.slice(match[0].length)) : runtimeWord(word.text.startsWith(match[0]) ? word.text.slice(match[0].length) : word.text);
  const host = (match[2] ?? '').replace(/^\[|\]$/g, '');
  return { word, path, form, host, ...(match[1] ? { user: match[1] } : {}), ...(url?.[3] ? { port: url[3] } : {}) };
}

/** An operand whose first `/` comes after an expansion may turn out to be `host:path` (`src_$x`, `$h:x`). */
export const mayBeRemote = (word: Word, scheme: string) => !word.literal && !remoteOf(word, scheme) && !knownPrefix(word).includes('/');
