/**
 * Reads a ValueSource (SPEC.md §1.1): inline value, env var, or secret. Secrets have no store yet:
 * `{ref: "Secret/<name>", key}` reads env `GOONDAN_SECRET_<NAME>_<KEY>` (upper-cased, "-" → "_").
 * An unset or empty variable is "missing" — never substituted by "".
 */
import type { ValueSource } from '../types/resources.ts';

export function secretEnvName(ref: string, key: string): string {
  const name = ref.startsWith('Secret/') ? ref.slice('Secret/'.length) : ref;
  const upper = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return `GOONDAN_SECRET_${upper(name)}_${upper(key)}`;
}

/** The environment variable a ValueSource reads, if any. */
export function valueSourceEnvName(source: ValueSource): string | undefined {
  if ('value' in source) return undefined;
  const from = source.valueFrom;
  return 'env' in from ? from.env : secretEnvName(from.secretRef.ref, from.secretRef.key);
}

export type ValueLookup = { ok: true; value: string } | { ok: false; missingEnv: string };

export function lookupValueSource(source: ValueSource, env: Record<string, string | undefined>): ValueLookup {
  if ('value' in source) return { ok: true, value: source.value };
  const name = valueSourceEnvName(source) ?? '';
  const value = env[name];
  return value === undefined || value === '' ? { ok: false, missingEnv: name } : { ok: true, value };
}
