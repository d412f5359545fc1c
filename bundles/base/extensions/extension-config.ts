/**
 * Reading `config` of a built-in extension (Extension `spec.config` with the Agent's
 * `extensions[].config` shallow-merged over it): one ajv validator per extension, compiled on first
 * use, that fills in the defaults declared in the schema and rejects unknown keys, so a misspelt
 * setting fails the agent's start (E_EXT_CONFIG, SPEC.md §4.3) instead of being ignored.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, JSONSchemaType, ValidateFunction } from 'ajv';

let ajvInstance: Ajv | undefined;
/** Loaded on first use: ajv's compiler costs ~10 MB of every agent that imports this module. */
function ajv(): Ajv {
  if (!ajvInstance) {
    // require() is untyped: this is the module's own declared type.
    const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    // useDefaults: the schema is the one place a default lives (extension.yaml mirrors it for readers).
    ajvInstance = new AjvClass({ allErrors: true, strict: false, useDefaults: true });
  }
  return ajvInstance;
}

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
  let validate: ValidateFunction<T> | undefined;
  return (config) => {
    validate ??= ajv().compile(schema);
    // A copy: useDefaults writes into the object, and the plan's config belongs to the engine.
    const value: unknown = structuredClone(config ?? {});
    if (validate(value)) return value;
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
