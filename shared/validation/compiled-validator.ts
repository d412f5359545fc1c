/**
 * ajv validators without ajv's compiler at run time. Compiling a schema loads ajv's code generator
 * and JIT-compiles the generated code: ~15 MB of RSS and tens of milliseconds per process, paid by
 * every agent and every CLI run. Instead each validator is generated once as ajv standalone code,
 * cached under BUILD_CACHE_DIR keyed by a hash of its schema (so an edited schema is a new file),
 * and later processes only `require` that small file. Generated on first use; a cache that cannot
 * be written only costs speed.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, Options } from 'ajv';
import { BUILD_CACHE_DIR, packageRequire } from '../package-root.ts';

/** A validator: a type guard that leaves ajv's errors of its last call in `errors`. */
export type Validator<T> = ((data: unknown) => data is T) & { errors?: ErrorObject[] | null };

export interface ValidatorSpec {
  schema: object;
  /** Schemas the main one references by `$id`. */
  refs?: readonly object[];
  options?: Pick<Options, 'allErrors' | 'strict' | 'strictTypes' | 'verbose' | 'useDefaults' | 'allowUnionTypes' | 'coerceTypes'>;
  /** Register ajv-formats (`format: uri`, `date-time`, …). */
  formats?: boolean;
}

/** Bump when the generated files change shape (a new key for every schema). */
const GENERATOR_VERSION = 1;
const CACHE = join(BUILD_CACHE_DIR, 'validators');
const nodeRequire = packageRequire;

type Compiled = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const declared: Array<() => void> = [];

/** A validator for `spec`, resolved (from the cache, else compiled and cached) on its first call. */
export function compiledValidator<T>(spec: ValidatorSpec): Validator<T> {
  let compiled: Compiled | undefined;
  const resolve = (): Compiled => (compiled ??= loadOrCompile(spec));
  const validate: Validator<T> = (data: unknown): data is T => {
    const inner = resolve();
    const ok = inner(data);
    validate.errors = inner.errors ?? null;
    return ok;
  };
  declared.push(() => void resolve());
  return validate;
}

/** Generates (or loads) every validator declared so far (benches call this before measuring). */
export function prepareDeclaredValidators(): number {
  for (const prepare of declared) prepare();
  return declared.length;
}

/** `a/b must be string, a must have required property 'c'` (ajv's errorsText). */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, dataVar = 'data'): string {
  if (!errors || errors.length === 0) return 'No errors';
  return errors.map((e) => `${dataVar}${e.instancePath} ${e.message ?? 'is invalid'}`).join(', ');
}

function loadOrCompile(spec: ValidatorSpec): Compiled {
  const file = join(CACHE, `${cacheKey(spec)}.cjs`);
  try {
    const cached: unknown = nodeRequire(file);
    if (isCompiled(cached)) return cached;
  } catch {
    // not generated yet (or unreadable): generate below
  }
  return compileAndStore(spec, file);
}

function cacheKey(spec: ValidatorSpec): string {
  const text = JSON.stringify([GENERATOR_VERSION, ajvVersion(), spec.options ?? {}, spec.formats === true, spec.refs ?? [], spec.schema]);
  return Bun.hash(text).toString(16).padStart(16, '0');
}

let version: string | undefined;
function ajvVersion(): string {
  if (version === undefined) {
    const pkg: unknown = nodeRequire('ajv/package.json');
    version = typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
  }
  return version;
}

function compileAndStore(spec: ValidatorSpec, file: string): Compiled {
  // require() is untyped: these are the modules' own declared types.
  const { Ajv } = nodeRequire('ajv') as typeof import('ajv');
  const ajv = new Ajv({ ...spec.options, code: { source: true } });
  if (spec.formats) (nodeRequire('ajv-formats') as typeof import('ajv-formats')).default(ajv);
  for (const ref of spec.refs ?? []) ajv.addSchema(ref);
  const validate = ajv.compile(spec.schema);
  try {
    const standalone = (nodeRequire('ajv/dist/standalone') as typeof import('ajv/dist/standalone')).default;
    store(file, absoluteRequires(standalone(ajv, validate)));
  } catch {
    // Best effort: a read-only install or a schema standalone code cannot express still validates.
  }
  return validate;
}

/** The generated code requires ajv's runtime helpers by package name; pin them to this install. */
function absoluteRequires(code: string): string {
  return code.replace(/require\("([^"]+)"\)/g, (_all, id: string) => `require(${JSON.stringify(nodeRequire.resolve(id))})`);
}

function store(file: string, code: string): void {
  mkdirSync(CACHE, { recursive: true });
  // Atomic: concurrent processes may generate the same file; a reader never sees half of one.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, code);
  renameSync(temp, file);
}

function isCompiled(value: unknown): value is Compiled {
  return typeof value === 'function';
}
