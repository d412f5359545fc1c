/**
 * `file-system__grep`: lines matching a regular expression (RE2: linear time, see linear-regex.ts),
 * as `{file, line, text}`. Skips binary files, files over `maxGrepFileBytes`, `.git` and
 * `node_modules`; never follows links.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { compileLinearRegex, firstMatchIndex } from '../linear-regex.ts';
import { displayPath, resolveWorkspacePath } from '../workspace-path.ts';
import { fromSystemError } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { relativeGlob, skippedDirs } from './search-scope.ts';
import { decodeText } from './text-detection.ts';
import { walkTree, type TreeEntry } from './walk-tree.ts';

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
  const info = await stat(target.absolute).catch((error: unknown) => {
    throw fromSystemError(error, target.display);
  });
  const maxResults = args.maxResults ?? DEFAULT_MAX_RESULTS;

  const candidates: AsyncIterable<TreeEntry> | TreeEntry[] = info.isDirectory()
    ? walkTree(target.real, { recursive: true, skipDirs: skippedDirs(args.include), ...(signal ? { signal } : {}) })
    : [{ absolute: target.real, relative: basename(target.real), type: 'file' }];

  const matches: JsonObject[] = [];
  let filesSearched = 0;
  let skippedBinary = 0;
  let skippedLarge = 0;
  let truncated = false;
  search: for await (const entry of candidates) {
    if (entry.type !== 'file' || !includes(entry.relative)) continue;
    const size = (await stat(entry.absolute).catch(() => undefined))?.size ?? 0;
    if (size > settings.maxGrepFileBytes) {
      skippedLarge += 1;
      continue;
    }
    const bytes = await readFile(entry.absolute).catch(() => undefined);
    if (bytes === undefined) continue;
    const decoded = decodeText(new Uint8Array(bytes));
    if (!decoded.text) {
      skippedBinary += 1;
      continue;
    }
    filesSearched += 1;
    const file = displayPath(settings.policy, entry.absolute);
    const lines = decoded.content.split('\n');
    for (let index = 0; index < lines.length; index += 1) {
      const line = (lines[index] ?? '').replace(/\r$/, '');
      // test() runs the DFA alone; the position is only needed for the lines that are shown.
      if (!regex.test(line)) continue;
      if (matches.length >= maxResults) {
        truncated = true;
        break search;
      }
      matches.push({ file, line: index + 1, text: clip(line, Math.max(0, firstMatchIndex(regex, line))) });
    }
  }
  const output: JsonObject = { pattern: args.pattern, path: target.display, matches, count: matches.length, truncated, filesSearched };
  if (skippedBinary + skippedLarge > 0) output.skipped = { binary: skippedBinary, tooLarge: skippedLarge };
  if (truncated) output.note = `Stopped after ${maxResults} matching lines; narrow the pattern or path, or raise maxResults.`;
  return output;
}

function clip(line: string, at: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const start = Math.max(0, Math.min(at - MAX_LINE_CHARS / 4, line.length - MAX_LINE_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + MAX_LINE_CHARS)}${start + MAX_LINE_CHARS < line.length ? '…' : ''}`;
}
