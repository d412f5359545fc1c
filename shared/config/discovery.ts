/**
 * Which YAML files make up a bundle (SPEC.md §1.3 "Discovery"): a recursive scan for files whose
 * base name is one of the resource file names, skipping build output, dependencies and dot-dirs.
 * Paths are sorted so that loading is deterministic.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { BundleNotFoundError } from './bundle-not-found-error.ts';

const RESOURCE_FILE_NAMES = new Set([
  'goondan',
  'model',
  'models',
  'agent',
  'agents',
  'tool',
  'tools',
  'extension',
  'extensions',
  'connector',
  'connectors',
  'connection',
  'connections',
  'swarm',
  'swarms',
  'resources',
]);
const SKIPPED_DIRS = new Set(['dist', 'node_modules', '.git']);

export function isYamlFile(path: string): boolean {
  const ext = extname(path);
  return ext === '.yaml' || ext === '.yml';
}

export function isResourceFileName(path: string): boolean {
  return isYamlFile(path) && RESOURCE_FILE_NAMES.has(basename(path, extname(path)));
}

export interface Discovery {
  /** Directory of the bundle: PATH itself, or the directory of the given file. */
  rootDir: string;
  /** The file whose first document may be the Package document. */
  mainFile?: string;
  files: string[];
}

function scan(dir: string, exclude: ReadonlySet<string>, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // an unreadable sub-directory holds nothing we can load
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.') || exclude.has(path)) continue;
      scan(path, exclude, out);
    } else if ((entry.isFile() || entry.isSymbolicLink()) && isResourceFileName(entry.name)) {
      out.push(path);
    }
  }
}

/**
 * Files to load for PATH; `undefined` when PATH does not exist. `exclude` lists directories never
 * scanned (the built-in package, which is always loaded on its own).
 */
export function discoverBundleFiles(path: string, exclude: ReadonlySet<string> = new Set()): Discovery | undefined {
  const target = resolve(path);
  let stats;
  try {
    stats = statSync(target);
  } catch {
    return undefined;
  }
  if (stats.isFile()) return { rootDir: dirname(target), mainFile: target, files: isYamlFile(target) ? [target] : [] };
  if (!stats.isDirectory()) return undefined;
  const files: string[] = [];
  scan(target, exclude, files);
  files.sort();
  const main = files.find((f) => dirname(f) === target && basename(f, extname(f)) === 'goondan');
  return main === undefined ? { rootDir: target, files } : { rootDir: target, mainFile: main, files };
}

/** Like discoverBundleFiles, but PATH must hold something to load: else BundleNotFoundError (CLI exit 3). */
export function discoverBundle(path: string, exclude: ReadonlySet<string> = new Set()): Discovery {
  const target = resolve(path);
  const discovery = discoverBundleFiles(target, exclude);
  if (!discovery) throw new BundleNotFoundError(target, 'no such file or directory');
  if (discovery.files.length === 0) {
    throw new BundleNotFoundError(
      target,
      discovery.mainFile === undefined ? 'no goondan.yaml or resource YAML files (agents.yaml, tools.yaml, …) in the directory' : 'not a YAML file',
    );
  }
  return discovery;
}

/** The directory whose `.env` files belong to PATH: PATH itself if a directory, else its parent. */
export function bundleDirOf(path: string): string {
  try {
    return statSync(path).isDirectory() ? path : dirname(path);
  } catch {
    return dirname(path);
  }
}
