/**
 * Imports a Tool's or an Extension's entry module. A built-in one comes from its bytecode build
 * when the daemon has made them (shared/base-module-builds.ts): no transpiling, and no function
 * compiled on its first call. Anything else — a user's module, or before the builds exist — is
 * imported from its source.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BASE_MODULE_BUILDS_ENV, baseModuleBuildOf } from '../../shared/base-module-builds.ts';

/** The builds' directory, once it exists (it appears whole); looked for again until then. */
let buildDir: string | undefined;
const requireBuild = createRequire(import.meta.url);

function builds(): string | undefined {
  if (buildDir !== undefined) return buildDir;
  const named = process.env[BASE_MODULE_BUILDS_ENV];
  if (named && existsSync(named)) buildDir = named;
  return buildDir;
}

export async function importEntryModule(path: string): Promise<unknown> {
  const dir = builds();
  const built = dir === undefined ? undefined : baseModuleBuildOf(path, dir);
  if (built !== undefined) {
    try {
      return requireBuild(built);
    } catch {
      // A build that does not load (damaged cache): the source loads, or throws the module's own error.
    }
  }
  return import(path);
}
