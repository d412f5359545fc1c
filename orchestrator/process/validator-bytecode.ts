/**
 * Bytecode builds of the cached ajv validators (bundles/base/cached-ajv.ts), made by the daemon
 * in the background once it is ready. A cached validator is plain CommonJS source: every process
 * that loads one parses it, and compiles each function on its first call. A warm spare loads six
 * of them, one 147 KB (the assignment schema): ~16 ms of its ~50 ms of CPU before it serves
 * anything, measured with the CPU profiler over ten new instances. From the bytecode build the same
 * validator costs 2-2.5 ms instead of 11-15 ms. Processes started later load the builds; a build
 * that fails or is missing only costs that speed.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ajvCacheBesideAjv, validatorBytecodeDir } from '../../bundles/base/cached-ajv.ts';
import { namesIn } from '../../shared/dir-names.ts';
import { VALIDATOR_CACHE_DIR } from '../../shared/validation/compiled-validator.ts';
import { BYTECODE_SUFFIX, writeBytecodeBuild } from './bytecode-build.ts';

const SOURCE_SUFFIX = '.cjs';
/** Files per Bun.build call: one call is cheaper per file, and a stopping daemon waits for one. */
const FILES_PER_BUILD = 8;

export interface ValidatorBytecodeResult {
  built: number;
  failed: number;
}

/**
 * Builds the bytecode of every validator in `cacheDir` that has none for this Bun yet (a daemon's
 * first start after an install builds all; later ones find them done). Stops between builds once
 * `stopping()` says so. Builds of other Bun versions are removed.
 */
export async function buildValidatorBytecode(cacheDir: string, stopping: () => boolean = () => false): Promise<ValidatorBytecodeResult> {
  const outDir = validatorBytecodeDir({ dir: cacheDir });
  const result: ValidatorBytecodeResult = { built: 0, failed: 0 };
  const pending = validatorsWithoutBytecode(cacheDir, outDir);
  if (pending.length === 0) return result;
  try {
    mkdirSync(outDir, { recursive: true });
    removeOtherBunVersions(cacheDir, outDir);
  } catch {
    // A read-only install (a container's image): its processes parse the sources, as before.
    return result;
  }
  for (let start = 0; start < pending.length && !stopping(); start += FILES_PER_BUILD) {
    const batch = pending.slice(start, start + FILES_PER_BUILD).map((name) => join(cacheDir, name));
    let built = await buildBatch(batch, outDir);
    // One file that does not build fails its whole batch: the others are built one by one.
    if (built === 0 && batch.length > 1) for (const file of batch) built += await buildBatch([file], outDir);
    result.built += built;
    result.failed += batch.length - built;
  }
  return result;
}

function validatorsWithoutBytecode(cacheDir: string, outDir: string): string[] {
  const built = new Set(namesIn(outDir));
  return namesIn(cacheDir)
    .filter((name) => name.endsWith(SOURCE_SUFFIX) && !built.has(builtName(name)))
    .sort();
}

/** `<key>.cjs` → `<key>.js`: Bun names the bytecode `<key>.js.jsc`. */
function builtName(sourceName: string): string {
  return `${sourceName.slice(0, -SOURCE_SUFFIX.length)}.js`;
}

/** Builds the files; returns how many were written. */
async function buildBatch(files: readonly string[], outDir: string): Promise<number> {
  let result: Awaited<ReturnType<typeof Bun.build>>;
  try {
    // The ajv runtime helpers a validator requires (by absolute path) are bundled into its build.
    result = await Bun.build({ entrypoints: [...files], target: 'bun', format: 'cjs', bytecode: true, minify: { whitespace: true, syntax: true } });
  } catch {
    // A source being replaced by its generator meanwhile, or a Bun without bytecode: next start retries.
    return 0;
  }
  if (!result.success) return 0;
  let written = 0;
  for (const entry of result.outputs.filter((output) => output.kind === 'entry-point')) {
    const name = entry.path.split('/').pop() ?? '';
    const bytecode = result.outputs.find((output) => output.kind === 'bytecode' && output.path.endsWith(`/${name}${BYTECODE_SUFFIX}`));
    if (!bytecode) continue;
    try {
      await writeBytecodeBuild(join(outDir, name), entry, bytecode);
      written++;
    } catch {
      // A full disk: that file stays unbuilt; the next start tries again.
    }
  }
  return written;
}

function removeOtherBunVersions(cacheDir: string, keep: string): void {
  for (const entry of readdirSync(cacheDir, { withFileTypes: true })) {
    const path = join(cacheDir, entry.name);
    if (entry.isDirectory() && entry.name.startsWith('bytecode-') && path !== keep) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * What a daemon runs once it is ready: the bytecode of every validator cached so far — goondan's
 * own and the built-in tools' (the same directory unless ajv is installed elsewhere). Never throws.
 */
export async function prepareValidatorBytecode(log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }, stopping: () => boolean): Promise<void> {
  const started = performance.now();
  const total: ValidatorBytecodeResult = { built: 0, failed: 0 };
  try {
    for (const dir of new Set([VALIDATOR_CACHE_DIR, ajvCacheBesideAjv().dir])) {
      const { built, failed } = await buildValidatorBytecode(dir, stopping);
      total.built += built;
      total.failed += failed;
    }
  } catch (error) {
    log.warn({ err: error }, 'building the validators’ bytecode failed; processes parse their sources instead');
    return;
  }
  if (total.built + total.failed > 0) log.info({ ...total, ms: Math.round(performance.now() - started) }, 'validators’ bytecode built for the processes started from now on');
}
