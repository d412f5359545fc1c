/** The built-in package `@goondan/base`, shipped in `bundles/base/` of the goondan install. */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';

export const BASE_PACKAGE_DIR = join(import.meta.dir, '..', '..', 'bundles', 'base');

/** Real path of the built-in package directory (symlinks resolved). */
export function basePackageRealDir(): string {
  try {
    return realpathSync(BASE_PACKAGE_DIR);
  } catch {
    return BASE_PACKAGE_DIR;
  }
}
