/**
 * The one ajv instance of the agent process: tool argument schemas, the mock script, stored
 * messages. Compiling is the expensive part, so callers compile once and keep the validator.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

// strict:false because tool schemas are user-written JSON Schema and may carry annotations
// (`examples`, `x-…`) that ajv's strict mode would reject; validation keywords still apply.
export const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
addFormats(ajv);

/**
 * Tool arguments on their way to the handler: JSON Schema `default`s are filled in (seed 002), so
 * handlers need not re-implement them. Only used on a copy of the model's arguments.
 */
export const ajvWithDefaults = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, useDefaults: true });
addFormats(ajvWithDefaults);
