/**
 * The goondan package directory (the one holding package.json, bundles/, node_modules/). Code
 * bundled into one file (the agent entry, see shared/build/agent-bundle.ts) cannot find it from
 * its own location, so the bundler writes it in at build time.
 */
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

declare const GOONDAN_BUNDLED_PACKAGE_ROOT: string | undefined;

export const PACKAGE_ROOT: string = typeof GOONDAN_BUNDLED_PACKAGE_ROOT === 'string' ? GOONDAN_BUNDLED_PACKAGE_ROOT : join(import.meta.dir, '..');

/**
 * A synchronous `require` resolving from the package root (`'ajv'`, `'./shared/logger.ts'`): what
 * is loaded lazily must be found the same way from the sources and from a bundle elsewhere.
 */
export const packageRequire = createRequire(join(PACKAGE_ROOT, 'package.json'));

/**
 * Where goondan keeps what it builds on install or first use (never committed, safe to delete):
 * `node_modules/.cache/goondan`, or GOONDAN_CACHE_DIR for a daemon that cannot write to its package
 * directory (a container image's user, systemd's ProtectSystem=strict). Its processes inherit it;
 * bundles/base/cached-ajv.ts reads it alike.
 */
export const BUILD_CACHE_DIR = process.env.GOONDAN_CACHE_DIR ? resolve(process.env.GOONDAN_CACHE_DIR) : join(PACKAGE_ROOT, 'node_modules', '.cache', 'goondan');
