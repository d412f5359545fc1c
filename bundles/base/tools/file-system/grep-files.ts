/**
 * `file-system__grep`: lines matching a regular expression (RE2: linear time, see linear-regex.ts),
 * as `{file, line, text}`. Skips binary files, files over `maxGrepFileBytes`, `.git` and
 * `node_modules`; never follows links.
 */
import { lstat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { compileLinearRegex, firstMatchIndex } from '../linear-regex.ts';
import { displayPath, resolveWorkspacePath } from '../workspace-path.ts';
import { fromSystemError } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { relativeGlob, skippedDirs } from './search-scope.ts';
import { decodeText } from './text-detection.ts';
import { openChildFile, openDirectory, openExistingFile, type OpenedFile } from './verified-open.ts';
import { walkTree } from './walk-tree.ts';

export interface GrepArgs {
  pattern: string;
  path?: string;
  include?: string;
  ignoreCase?: boolean;
  maxResults?: number;
}

const DEFAULT_MAX_RESULTS = 200;
// Minified files have megabyte lines; show a window around the match instead.
const MAX_LINE_CHARS = 400;

export async function grepFiles(settings: FileSystemSettings, args: GrepArgs, signal?: AbortSignal): Promise<JsonObject> {
  const regex = compileLinearRegex(args.pattern, { ignoreCase: args.ignoreCase === true, errorCode: 'E_FS_BAD_PATTERN', literalHint: '' });
  const include = args.include === undefined ? undefined : relativeGlob(args.include, 'include pattern');
  // "*.ts" means any depth, as in ripgrep's --glob; a pattern with "/" matches the relative path.
  const includes = (relative: string): boolean =>
    include === undefined || include.match(args.include?.includes('/') === true ? relative : basename(relative));
  const target = resolveWorkspacePath(settings.policy, args.path ?? '.');
  // lstat of the real path: it holds no links, so this is what will be opened (and then verified).
  const info = await lstat(target.real).catch((error: unknown) => {
    throw fromSystemError(error, target.display);
  });
  const maxResults = args.maxResults ?? DEFAULT_MAX_RESULTS;
  const matches: JsonObject[] = [];
  const found = { filesSearched: 0, binary: 0, tooLarge: 0, hardLinked: 0, truncated: false };

  /** Searches one opened file (and closes it); returns true once maxResults is reached. */
  const searchFile = async ({ handle, stats }: OpenedFile, absolute: string): Promise<boolean> => {
    try {
      if (stats.size > settings.maxGrepFileBytes) {
        found.tooLarge += 1;
        return false;
      }
      const decoded = decodeText(new Uint8Array(await handle.readFile()));
      if (!decoded.text) {
        found.binary += 1;
        return false;
      }
      found.filesSearched += 1;
      const file = displayPath(settings.policy, absolute);
      const lines = decoded.content.split('\n');
      for (let index = 0; index < lines.length; index += 1) {
        const line = (lines[index] ?? '').replace(/\r$/, '');
        // test() runs the DFA alone; the position is only needed for the lines that are shown.
        if (!regex.test(line)) continue;
        if (matches.length >= maxResults) return (found.truncated = true);
        matches.push({ file, line: index + 1, text: clip(line, Math.max(0, firstMatchIndex(regex, line))) });
      }
      return false;
    } finally {
      await handle.close();
    }
  };

  if (!info.isDirectory()) {
    if (includes(basename(target.real))) await searchFile(await openExistingFile(settings.policy, target, 'read'), target.real);
  } else {
    const root = await openDirectory(settings.policy, target, 'none');
    try {
      for await (const entry of walkTree(root.handle, target.real, { recursive: true, skipDirs: skippedDirs(args.include), ...(signal ? { signal } : {}) })) {
        if (entry.type !== 'file' || !includes(entry.relative)) continue;
        const opened = await openChildFile(entry.parent, entry.name);
        if (opened === undefined) continue;
        if (opened.stats.nlink > 1 && !settings.policy.allowOutsideWorkdir) {
          found.hardLinked += 1;
          await opened.handle.close();
          continue;
        }
        if (await searchFile(opened, entry.absolute)) break;
      }
    } finally {
      await root.handle.close();
    }
  }
  const { filesSearched, truncated } = found;
  const output: JsonObject = { pattern: args.pattern, path: target.display, matches, count: matches.length, truncated, filesSearched };
  if (found.binary + found.tooLarge + found.hardLinked > 0) {
    output.skipped = { binary: found.binary, tooLarge: found.tooLarge, ...(found.hardLinked > 0 ? { hardLinked: found.hardLinked } : {}) };
  }
  const notes = [
    ...(truncated ? [`Stopped after ${maxResults} matching lines; narrow the pattern or path, or raise maxResults.`] : []),
    ...(found.hardLinked > 0 ? ['Files with more than one hard link were skipped: another link may lie outside the workspace.'] : []),
  ];
  if (notes.length > 0) output.note = notes.join(' ');
  return output;
}

function clip(line: string, at: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const start = Math.max(0, Math.min(at - MAX_LINE_CHARS / 4, line.length - MAX_LINE_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + MAX_LINE_CHARS)}${start + MAX_LINE_CHARS < line.length ? '…' : ''}`;
}
