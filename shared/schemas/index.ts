/** JSON Schemas of the bundle format: one per Kind, compiled once (see validators.ts). */
export { KIND_SCHEMAS } from './kind-schemas.ts';
export { kindValidator, schemaErrors, jsonSchemaProblems, sandboxSpecValidator, type JsonSchemaProblem } from './validators.ts';
export { buildPublishedSchema, publishedSchemaText } from './published-schema.ts';
export { MODEL_PROVIDERS } from './model.ts';
