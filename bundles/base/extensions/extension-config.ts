/**
 * Reading `config` of a built-in extension (Extension `spec.config` with the Agent's
 * `extensions[].config` shallow-merged over it): one ajv validator per extension, generated once and
 * cached (cached-ajv.ts), that fills in the defaults declared in the schema and rejects unknown keys, so a misspelt
 * setting fails the agent's start (E_EXT_CONFIG, SPEC.md §4.3) instead of being ignored.
 */
import type { ErrorObject, JSONSchemaType } from 'ajv';
import { type CompiledAjv, ajvCacheBesideAjv, cachedAjvValidator } from '../cached-ajv.ts';

const MAX_LISTED_ISSUES = 5;

/** A config problem: a plain Error with a stable code, a message naming the key, and a suggestion. */
export class ExtensionConfigError extends Error {
  readonly code = 'E_EXT_CONFIG';
  readonly suggestion: string;

  constructor(extension: string, issues: string[]) {
    super(`E_EXT_CONFIG: invalid config for extension "${extension}": ${issues.join('; ')}`);
    this.name = 'ExtensionConfigError';
    this.suggestion = `Fix spec.config of Extension/${extension} or extensions[].config of the agent.`;
  }
}

/**
 * A reader for one extension's config: returns a copy with the defaults applied, typed as `T`, or
 * throws ExtensionConfigError listing up to five problems (`config.maxMessages: must be >= 1`).
 */
export function extensionConfigReader<T>(extension: string, schema: JSONSchemaType<T>): (config: unknown) => T {
  let validate: CompiledAjv | undefined;
  const isConfig = (value: unknown): value is T => validate?.(value) === true;
  return (config) => {
    // useDefaults: the schema is the one place a default lives (extension.yaml mirrors it for readers).
    validate ??= cachedAjvValidator({ schema, options: { allErrors: true, strict: false, useDefaults: true } }, ajvCacheBesideAjv());
    // A copy: useDefaults writes into the object, and the plan's config belongs to the engine.
    const value: unknown = structuredClone(config ?? {});
    if (isConfig(value)) return value;
    throw new ExtensionConfigError(extension, describeIssues(validate.errors));
  };
}

function describeIssues(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, MAX_LISTED_ISSUES).map((error) => {
    const where = `config${error.instancePath.replace(/\//g, '.')}`;
    if (error.keyword === 'additionalProperties') return `${where}: unknown key "${String(error.params.additionalProperty)}"`;
    if (error.keyword === 'enum') return `${where}: must be one of ${JSON.stringify(error.params.allowedValues)}`;
    return `${where}: ${error.message ?? error.keyword}`;
  });
}
