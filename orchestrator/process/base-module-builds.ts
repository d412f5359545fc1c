/**
 * Bytecode builds of the built-in package's modules (bundles/base: its tools, extensions and their
 * helpers), which every agent process imports. From the sources each process transpiles them and
 * compiles every function on its first call: the modules a spare preloads (context-message, the
 * agents tool, …) cost ~15 ms of its CPU, and the first turns compile their functions again in each
 * process. Their builds load as bytecode instead.
 *
 * One output file per source file, its relative imports left as requires of the neighbouring
 * builds: a module shared by two entries (tool-policy's shell parser, which the bash tool's preview
 * uses too) stays one module with one state, as from the sources. `import.meta.dir` is written in
 * as the source's directory, so a module still finds the files beside it (its tool.yaml).
 *
 * Made by the daemon in the background once it is ready, into a directory named by the sources'
 * fingerprint that appears whole (built beside it, then renamed): a process sees all the builds or
 * none, and before they are there it imports the sources (agent-process/tools/entry-module.ts).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { BunPlugin } from 'bun';
import { BUILD_CACHE_DIR, PACKAGE_ROOT } from '../../shared/package-root.ts';
import { BASE_PACKAGE_DIR } from '../../shared/base-module-builds.ts';
import { sourceFingerprint } from './source-fingerprint.ts';

/** Bump when the build settings change. */
const BUILD_VERSION = 1;
const BUILDS_DIR = join(BUILD_CACHE_DIR, 'base-modules');

let current: string | undefined;

/** The directory agents are told to import the built-in modules from (none until chosen, or when off). */
export function baseModuleBuilds(): string | undefined {
  return current;
}

/** Names the builds' directory for this daemon's agents; GOONDAN_AGENT_BUNDLE=0 keeps them on the sources, as their entry. */
export function chooseBaseModuleBuilds(env: Record<string, string | undefined>): void {
  current = env.GOONDAN_AGENT_BUNDLE === '0' ? undefined : baseModuleBuildDir();
}

/** Where the builds of the built-in modules as they are now go (whether or not they are there yet). */
export function baseModuleBuildDir(): string {
  const fingerprint = sourceFingerprint({
    dirs: [BASE_PACKAGE_DIR],
    files: [join(PACKAGE_ROOT, 'package-lock.json')],
    settings: [String(BUILD_VERSION), PACKAGE_ROOT],
  });
  return join(BUILDS_DIR, fingerprint);
}

/** The package's module files: every `.ts` but tests (a tool imports the connectors' helpers too). */
function moduleFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      files.push(...moduleFiles(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/**
 * Keeps every module its own output: a relative import of another module of the package becomes a
 * require of that module's build (`./x.ts` → `./x.js`); one outside it (shared/canonical-json.ts)
 * a require of its source by absolute path; packages stay in node_modules.
 */
const oneOutputPerModule: BunPlugin = {
  name: 'one-output-per-module',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(dirname(args.importer), args.path);
      if (!target.startsWith(`${BASE_PACKAGE_DIR}/`)) return { path: target, external: true };
      const fromImporter = relative(dirname(args.importer), target).replace(/\.ts$/, '.js');
      return { path: fromImporter.startsWith('.') ? fromImporter : `./${fromImporter}`, external: true };
    });
  },
};

/** Builds every module into `outDir` (made whole: built beside it, then renamed). Throws when the build fails. */
export async function buildBaseModules(outDir: string): Promise<number> {
  const result = await Bun.build({
    entrypoints: moduleFiles(BASE_PACKAGE_DIR),
    root: BASE_PACKAGE_DIR,
    target: 'bun',
    // Bytecode needs CommonJS outside `--compile` (as the agent bundle).
    format: 'cjs',
    bytecode: true,
    packages: 'external',
    // Whitespace and syntax only: function names stay readable in stack traces.
    minify: { whitespace: true, syntax: true, identifiers: false },
    plugins: [oneOutputPerModule],
  });
  if (!result.success) throw new Error(`building the built-in modules failed: ${result.logs.map((log) => log.message).join('; ')}`);
  const temp = `${outDir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  for (const output of result.outputs) {
    const path = join(temp, output.path);
    mkdirSync(dirname(path), { recursive: true });
    await Bun.write(path, output);
  }
  try {
    renameSync(temp, outDir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // Another daemon of this install made the same builds meanwhile.
    if (!existsSync(outDir)) throw error;
  }
  return result.outputs.filter((output) => output.kind === 'entry-point').length;
}

/** Older builds go once no daemon started in the last hour can still be spawning agents that use them. */
const STALE_BUILDS_MS = 60 * 60 * 1000;

function removeStaleBuilds(keep: string): void {
  for (const name of existsSync(BUILDS_DIR) ? readdirSync(BUILDS_DIR) : []) {
    const other = join(BUILDS_DIR, name);
    if (other === keep) continue;
    try {
      if (Date.now() - statSync(other).mtimeMs > STALE_BUILDS_MS) rmSync(other, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another daemon.
    }
  }
}

/**
 * What a daemon runs once it is ready: the builds for the current sources, unless they are there
 * (once per install or upgrade, ~1 s in the background). Never throws: without them agents import
 * the sources, only slower. A read-only install is served by scripts/warm-caches.ts.
 */
export async function prepareBaseModuleBuilds(log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }, outDir = current): Promise<void> {
  if (outDir === undefined || existsSync(outDir)) return;
  const started = performance.now();
  try {
    mkdirSync(BUILDS_DIR, { recursive: true });
    const modules = await buildBaseModules(outDir);
    removeStaleBuilds(outDir);
    log.info({ modules, ms: Math.round(performance.now() - started), dir: outDir }, 'built-in modules’ bytecode built for the agents started from now on');
  } catch (error) {
    log.warn({ err: error }, 'cannot build the built-in modules’ bytecode; agents import their sources');
  }
}
