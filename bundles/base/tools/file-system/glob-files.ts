/** `file-system__glob`: files whose path (relative to `path`) matches a glob such as `src/**\/*.ts`. */
import type { JsonObject } from '../../../../shared/types/index.ts';
import { displayPath, resolveWorkspacePath } from '../workspace-path.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { relativeGlob, skippedDirs } from './search-scope.ts';
import { openDirectory } from './verified-open.ts';
import { walkTree } from './walk-tree.ts';

export interface GlobArgs {
  pattern: string;
  path?: string;
  maxResults?: number;
}

const DEFAULT_MAX_RESULTS = 1000;

export async function globFiles(settings: FileSystemSettings, args: GlobArgs, signal?: AbortSignal): Promise<JsonObject> {
  const glob = relativeGlob(args.pattern, 'pattern');
  const base = resolveWorkspacePath(settings.policy, args.path ?? '.');
  const root = await openDirectory(settings.policy, base, 'none');
  const maxResults = args.maxResults ?? DEFAULT_MAX_RESULTS;

  const files: string[] = [];
  let truncated = false;
  try {
    const walk = walkTree(root.handle, base.real, { recursive: true, skipDirs: skippedDirs(args.pattern), ...(signal ? { signal } : {}) });
    for await (const entry of walk) {
      if (entry.type === 'directory' || !glob.match(entry.relative)) continue;
      if (files.length >= maxResults) {
        truncated = true;
        break;
      }
      files.push(displayPath(settings.policy, entry.absolute));
    }
  } finally {
    await root.handle.close();
  }
  const output: JsonObject = { pattern: args.pattern, path: base.display, files, count: files.length, truncated };
  if (truncated) output.note = `Stopped after ${maxResults} matches; narrow the pattern or raise maxResults.`;
  return output;
}
