/**
 * The ajv settings of the agent process (tool argument schemas, the mock script, stored messages),
 * as validators generated once and cached (shared/validation/compiled-validator.ts): an agent
 * process does not load ajv's compiler unless a schema is new.
 */
import { compiledValidator, type Validator } from '../../shared/validation/compiled-validator.ts';

// strict:false because tool schemas are user-written JSON Schema and may carry annotations
// (`examples`, `x-…`) that ajv's strict mode would reject; validation keywords still apply.
const OPTIONS = { allErrors: true, strict: false, allowUnionTypes: true } as const;

/** `fillDefaults`: JSON Schema `default`s are written into the checked value (tool arguments on a copy, seed 002). */
export function agentValidator<T>(schema: object, fillDefaults = false): Validator<T> {
  return compiledValidator<T>({ schema, options: fillDefaults ? { ...OPTIONS, useDefaults: true } : OPTIONS, formats: true });
}
