/**
 * Depth-first walk of a directory in name order, through descriptors: the root is an opened,
 * verified directory and every subdirectory is opened from its parent's descriptor with
 * O_NOFOLLOW, so a directory swapped for a link mid-walk is skipped instead of followed out of the
 * workspace. Symbolic links are reported but never followed; unreadable directories are skipped.
 */
import type { Dirent } from 'node:fs';
import { readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { abortedError } from '../tool-error.ts';
import { openChildDirectory, pathIn } from './verified-open.ts';

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface TreeEntry {
  /** Path for display (the root's real path joined with the relative path). */
  absolute: string;
  /** Relative to the walk root, `/`-separated. */
  relative: string;
  type: EntryType;
  /** The entry reached through its parent's descriptor; valid until the walk moves on. */
  openPath: string;
  /** The open parent directory and the entry's name in it (for openChildFile). */
  parent: FileHandle;
  name: string;
}

export interface WalkOptions {
  recursive: boolean;
  /** Directory names not descended into (e.g. `.git`, `node_modules`); they are still yielded. */
  skipDirs?: ReadonlySet<string>;
  signal?: AbortSignal;
}

export async function* walkTree(root: FileHandle, rootPath: string, options: WalkOptions, prefix = ''): AsyncGenerator<TreeEntry> {
  let entries: Dirent[];
  try {
    entries = await readdir(`/proc/self/fd/${root.fd}`, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (options.signal?.aborted) throw abortedError('The file search');
    const entryType = typeOf(entry);
    const item: TreeEntry = { absolute: join(rootPath, entry.name), relative: prefix + entry.name, type: entryType, openPath: pathIn(root, entry.name), parent: root, name: entry.name };
    yield item;
    if (entryType !== 'directory' || !options.recursive || options.skipDirs?.has(entry.name) === true) continue;
    const child = await openChildDirectory(root, entry.name);
    if (child === undefined) continue;
    try {
      yield* walkTree(child, item.absolute, options, `${item.relative}/`);
    } finally {
      await child.close();
    }
  }
}

function typeOf(entry: Dirent): EntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return 'other';
}
