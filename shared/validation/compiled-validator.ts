/**
 * ajv validators without ajv's compiler at run time: each is generated once as ajv standalone
 * code and cached under BUILD_CACHE_DIR (bundles/base/cached-ajv.ts), resolved on its first call.
 */
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { type AjvSpec, type CompiledAjv, cachedAjvValidator } from '../../bundles/base/cached-ajv.ts';
import { BUILD_CACHE_DIR, packageRequire } from '../package-root.ts';

/** A validator: a type guard that leaves ajv's errors of its last call in `errors`. */
export type Validator<T> = ((data: unknown) => data is T) & { errors?: ErrorObject[] | null };

export type ValidatorSpec = AjvSpec;

/** Where goondan's own validators are cached (the built-in tools' share it in an installed package). */
export const VALIDATOR_CACHE_DIR = join(BUILD_CACHE_DIR, 'validators');
const CACHE = { dir: VALIDATOR_CACHE_DIR, require: packageRequire };
const declared: Array<() => void> = [];

/** A validator for `spec`, resolved (from the cache, else compiled and cached) on its first call. */
export function compiledValidator<T>(spec: ValidatorSpec): Validator<T> {
  let compiled: CompiledAjv | undefined;
  const resolve = (): CompiledAjv => (compiled ??= cachedAjvValidator(spec, CACHE));
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
