/**
 * Depth-first walk of a directory in name order. Symbolic links are reported but never followed
 * (a link must not lead a search out of the workspace or into a loop); unreadable directories are
 * skipped.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { abortedError } from '../tool-error.ts';

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface TreeEntry {
  absolute: string;
  /** Relative to the walk root, `/`-separated. */
  relative: string;
  type: EntryType;
}

export interface WalkOptions {
  recursive: boolean;
  /** Directory names not descended into (e.g. `.git`, `node_modules`); they are still yielded. */
  skipDirs?: ReadonlySet<string>;
  signal?: AbortSignal;
}

export async function* walkTree(root: string, options: WalkOptions, prefix = ''): AsyncGenerator<TreeEntry> {
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (options.signal?.aborted) throw abortedError('The file search');
    const entryType = typeOf(entry);
    const item = { absolute: join(root, entry.name), relative: prefix + entry.name, type: entryType };
    yield item;
    if (entryType === 'directory' && options.recursive && options.skipDirs?.has(entry.name) !== true) {
      yield* walkTree(item.absolute, options, `${item.relative}/`);
    }
  }
}

function typeOf(entry: Dirent): EntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return 'other';
}
