/**
 * A copy of the goondan package's code with its own node_modules (links to this checkout's
 * packages, but no `.cache`): a daemon started from it builds and reads its caches in the copy's
 * `node_modules/.cache/goondan`. Tests that remove, count or compare package caches use one, so
 * they neither disturb nor are disturbed by the test files running beside them (`--parallel`).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dir, '../..');
/** What a daemon, its agents and the install script load from the package. */
const PACKAGE_ENTRIES = ['package.json', 'package-lock.json', 'tsconfig.json', 'bin', 'agent-process', 'connector-process', 'orchestrator', 'shared', 'bundles', 'schemas', 'studio', 'templates', 'scripts'];

export interface PrivatePackage {
  root: string;
  /** Its `goondan` launcher. */
  bin: string;
  /** Its package cache (what BUILD_CACHE_DIR is for processes started from it). */
  cacheDir: string;
  remove(): void;
}

export function privatePackage(): PrivatePackage {
  const root = mkdtempSync(join(tmpdir(), 'goondan-package-copy-'));
  for (const entry of PACKAGE_ENTRIES) cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
  mkdirSync(join(root, 'node_modules'));
  for (const name of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (name !== '.cache') symlinkSync(join(REPO_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  }
  return {
    root,
    bin: join(root, 'bin', 'goondan'),
    cacheDir: join(root, 'node_modules', '.cache', 'goondan'),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
