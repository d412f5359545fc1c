/**
 * Where an agent process finds the bytecode builds of the built-in package's modules
 * (orchestrator/process/base-module-builds.ts makes them): the daemon names their directory in
 * GOONDAN_BASE_MODULE_BUILDS, and a module's build is its path under bundles/base there, `.ts`
 * → `.js`.
 */
import { join, relative } from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

export const BASE_MODULE_BUILDS_ENV = 'GOONDAN_BASE_MODULE_BUILDS';
export const BASE_PACKAGE_DIR = join(PACKAGE_ROOT, 'bundles', 'base');

/** The build of a built-in module in `buildDir`; undefined for a module outside the package. */
export function baseModuleBuildOf(sourcePath: string, buildDir: string): string | undefined {
  if (!sourcePath.startsWith(`${BASE_PACKAGE_DIR}/`) || !sourcePath.endsWith('.ts')) return undefined;
  return join(buildDir, `${relative(BASE_PACKAGE_DIR, sourcePath).slice(0, -'.ts'.length)}.js`);
}
