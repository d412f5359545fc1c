/**
 * What glob and grep search: a directory walk that skips `.git` and `node_modules` (unless the
 * pattern names them), and glob patterns that stay relative to the search directory.
 */
import { BaseToolError } from '../tool-error.ts';

const SKIPPED_DIRS = ['.git', 'node_modules'];

/** Directories not descended into, minus the ones the pattern explicitly asks for. */
export function skippedDirs(pattern: string | undefined): Set<string> {
  const segments = new Set((pattern ?? '').split('/'));
  return new Set(SKIPPED_DIRS.filter((name) => !segments.has(name)));
}

/**
 * Checks a glob pattern is relative and stays below the search directory; strips a leading `./`.
 * `..` is refused as a path segment and as a brace alternative (`{..,x}/**`). The walk itself never
 * leaves the search directory either: patterns are only matched against paths found inside it.
 */
export function relativeGlob(pattern: string, what: string): Bun.Glob {
  const trimmed = pattern.replace(/^(\.\/)+/, '');
  const segments = trimmed.split(/[/{},]/);
  if (trimmed.startsWith('/') || trimmed.startsWith('~') || segments.includes('..')) {
    throw new BaseToolError('E_FS_OUTSIDE_WORKDIR', `The ${what} "${pattern}" must be relative to the search directory and may not contain "..".`, {
      suggestion: 'Set path to the directory to search and keep the pattern relative, e.g. path: "src", pattern: "**/*.ts".',
    });
  }
  if (trimmed === '') throw new BaseToolError('E_TOOL_INVALID_ARGS', `The ${what} is empty.`, { suggestion: 'Use a pattern such as "**/*.ts".' });
  return new Bun.Glob(trimmed);
}
