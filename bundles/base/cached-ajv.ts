/**
 * ajv validators without ajv's compiler at run time. Compiling a schema loads ajv's code generator
 * and JIT-compiles the result: ~20 MB of RSS and tens of milliseconds in every process that does
 * it. Instead each validator is generated once as ajv standalone code, cached keyed by a hash of
 * its schema and options (an edited schema is a new file), and later processes only `require` that
 * small file. A cache that cannot be written only costs speed. A daemon later builds each file's
 * bytecode (orchestrator/process/validator-bytecode.ts); processes then load that build instead:
 * a large validator's source is neither parsed nor compiled on its first call (the agent's
 * assignment schema: require + first call 11-15 ms -> 2-2.5 ms).
 *
 * It lives here, depending only on ajv, because the built-in tools and extensions may not import
 * run-time code from shared/ (ARCHITECTURE §1); shared/validation/compiled-validator.ts uses it too.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { ErrorObject, Options } from 'ajv';

export interface AjvSpec {
  schema: object;
  /** Schemas the main one references by `$id`. */
  refs?: readonly object[];
  options?: Pick<Options, 'allErrors' | 'strict' | 'strictTypes' | 'verbose' | 'useDefaults' | 'allowUnionTypes' | 'coerceTypes'>;
  /** Register ajv-formats (`format: uri`, `date-time`, …). */
  formats?: boolean;
}

/** A validator function; ajv leaves the problems of its last call in `errors`. */
export type CompiledAjv = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export interface AjvCache {
  dir: string;
  /** Resolves ajv (and its runtime helpers) from the installation the cache belongs to. */
  require: NodeJS.Require;
}

/** Bump when the generated files change shape (a new key for every schema). */
const GENERATOR_VERSION = 2;

/**
 * ajv's string-length helper (code points, for minLength/maxLength) walks the string in a
 * JavaScript loop: on a long string (a prompt, a message) it turns hot at once and JSC compiles it
 * with its optimizing JIT, which alone adds ~2 MB of RSS to an agent that otherwise never needs
 * that compiler. Generated code gets this one instead, with the same answers: the regexp engine
 * counts the surrogate pairs (two UTF-16 units, one code point; a lone surrogate counts as one).
 */
const AJV_UCS2_LENGTH = 'ajv/dist/runtime/ucs2length';
const UCS2_LENGTH = '({ default: (str) => str.length - (str.match(/[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]/g)?.length ?? 0) })';

let besideAjv: AjvCache | undefined;

/**
 * The cache beside the installed ajv: `<node_modules>/.cache/goondan/validators`, or under
 * GOONDAN_CACHE_DIR when the daemon moved its caches (shared/package-root.ts).
 */
export function ajvCacheBesideAjv(): AjvCache {
  if (!besideAjv) {
    const require = createRequire(import.meta.url);
    const moved = process.env.GOONDAN_CACHE_DIR;
    const root = moved ? resolve(moved) : join(dirname(dirname(require.resolve('ajv/package.json'))), '.cache', 'goondan');
    besideAjv = { dir: join(root, 'validators'), require };
  }
  return besideAjv;
}

/**
 * Where the bytecode builds of a cache's validators are: `<key>.js` beside `<key>.js.jsc`, which
 * Bun loads instead of parsing the source. Per Bun version: another Bun rejects the bytecode.
 */
export function validatorBytecodeDir(cache: Pick<AjvCache, 'dir'>): string {
  return join(cache.dir, `bytecode-${Bun.version}`);
}

/** The cached standalone validator for `spec`, generated (and stored) on first use. */
export function cachedAjvValidator(spec: AjvSpec, cache: AjvCache): CompiledAjv {
  const key = cacheKey(spec, cache);
  const built = join(validatorBytecodeDir(cache), `${key}.js`);
  const source = join(cache.dir, `${key}.cjs`);
  // Checked first: a missing file's require throws, and building that error costs more than a stat.
  const cached = (existsSync(built) ? load(built, cache) : undefined) ?? load(source, cache);
  return cached ?? compileAndStore(spec, cache, source);
}

function load(file: string, cache: AjvCache): CompiledAjv | undefined {
  try {
    const cached: unknown = cache.require(file);
    if (isCompiled(cached)) return cached;
  } catch {
    // not generated yet (or unreadable): the caller falls back
  }
  return undefined;
}

function cacheKey(spec: AjvSpec, cache: AjvCache): string {
  const pkg: unknown = cache.require('ajv/package.json');
  const version = typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
  const text = JSON.stringify([GENERATOR_VERSION, version, spec.options ?? {}, spec.formats === true, spec.refs ?? [], spec.schema]);
  return Bun.hash(text).toString(16).padStart(16, '0');
}

function compileAndStore(spec: AjvSpec, cache: AjvCache, file: string): CompiledAjv {
  // require() is untyped: these are the modules' own declared types.
  const { Ajv } = cache.require('ajv') as typeof import('ajv');
  const ajv = new Ajv({ ...spec.options, code: { source: true } });
  if (spec.formats) (cache.require('ajv-formats') as typeof import('ajv-formats')).default(ajv);
  for (const ref of spec.refs ?? []) ajv.addSchema(ref);
  const validate = ajv.compile(spec.schema);
  try {
    const standalone = (cache.require('ajv/dist/standalone') as typeof import('ajv/dist/standalone')).default;
    // The generated code requires ajv's runtime helpers by package name: pin them to this install.
    const code = standalone(ajv, validate).replace(/require\("([^"]+)"\)/g, (_all, id: string) => (id === AJV_UCS2_LENGTH ? UCS2_LENGTH : `require(${JSON.stringify(cache.require.resolve(id))})`));
    mkdirSync(cache.dir, { recursive: true });
    // Atomic: concurrent processes may generate the same file; a reader never sees half of one.
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, code);
    renameSync(temp, file);
  } catch {
    // Best effort: a read-only install or a schema standalone code cannot express still validates.
  }
  return validate;
}

function isCompiled(value: unknown): value is CompiledAjv {
  return typeof value === 'function';
}
