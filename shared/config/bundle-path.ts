/**
 * Resolves `entry` / `systemRef` against the bundle root (SPEC.md §1.3): relative paths only, no
 * "../" escape, and the real path (symlinks resolved) must stay inside the real bundle root.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, normalize, relative, resolve, sep } from 'node:path';

export type BundlePathResult =
  | { ok: true; path: string }
  | { ok: false; reason: 'escape' | 'missing'; message: string };

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** For entries, `./x.js` may be written while `./x.ts` exists ([ref] loader order: .js, then .ts). */
export function resolveBundlePath(bundleRoot: string, path: string, kind: 'entry' | 'file'): BundlePathResult {
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
    return { ok: false, reason: 'escape', message: `"${path}" is an absolute path; paths are relative to the bundle root` };
  }
  const normalized = normalize(path);
  if (normalized === '..' || normalized.startsWith(`..${sep}`) || normalized.startsWith('../')) {
    return { ok: false, reason: 'escape', message: `"${path}" leaves the bundle root` };
  }
  const full = resolve(bundleRoot, path);
  const candidates = kind === 'entry' && full.endsWith('.js') ? [full, `${full.slice(0, -3)}.ts`] : [full];
  const found = candidates.find(isFile);
  if (found === undefined) {
    return { ok: false, reason: 'missing', message: `"${path}" does not exist (looked for ${candidates.join(', ')})` };
  }
  const realRoot = existsSync(bundleRoot) ? realpathSync(bundleRoot) : bundleRoot;
  if (!inside(realRoot, realpathSync(found))) {
    return { ok: false, reason: 'escape', message: `"${path}" resolves outside the bundle root through a symlink (${realpathSync(found)})` };
  }
  return { ok: true, path: found };
}
