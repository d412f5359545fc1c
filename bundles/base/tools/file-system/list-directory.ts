/** `file-system__list`: the entries of a directory, optionally recursive, capped. */
import { lstat } from 'node:fs/promises';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { displayPath, resolveWorkspacePath } from '../workspace-path.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { openDirectory } from './verified-open.ts';
import { walkTree } from './walk-tree.ts';

export interface ListArgs {
  path?: string;
  recursive?: boolean;
  includeDirs?: boolean;
  includeFiles?: boolean;
}

export async function listDirectory(settings: FileSystemSettings, args: ListArgs, signal?: AbortSignal): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path ?? '.');
  const root = await openDirectory(settings.policy, target, 'none');
  const includeDirs = args.includeDirs !== false;
  const includeFiles = args.includeFiles !== false;

  const entries: JsonObject[] = [];
  let truncated = false;
  try {
    // Walk the real directory: a listed path that is itself a link inside the workspace still works.
    for await (const entry of walkTree(root.handle, target.real, { recursive: args.recursive === true, ...(signal ? { signal } : {}) })) {
      const isDir = entry.type === 'directory';
      if (isDir ? !includeDirs : !includeFiles) continue;
      if (entries.length >= settings.maxListEntries) {
        truncated = true;
        break;
      }
      const item: JsonObject = { path: displayPath(settings.policy, entry.absolute), name: entry.name, type: entry.type };
      if (entry.type === 'file') item.size = (await lstat(entry.openPath).catch(() => undefined))?.size ?? null;
      entries.push(item);
    }
  } finally {
    await root.handle.close();
  }
  const output: JsonObject = { path: target.display, entries, count: entries.length, truncated };
  if (truncated) output.note = `Stopped after ${settings.maxListEntries} entries. List a subdirectory or use file-system__glob with a narrower pattern.`;
  return output;
}
