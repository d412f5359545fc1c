/**
 * The validators of the config plane: one per Kind, generated once as standalone code
 * (shared/validation/compiled-validator.ts) and loaded on first use, each a type guard for the
 * typed resource; and the JSON Schema meta-schema for tool parameter schemas.
 */
import type { ErrorObject } from 'ajv';
import type {
  AgentResource,
  AnyResource,
  ConnectionResource,
  ConnectorResource,
  ExtensionResource,
  ModelResource,
  PackageResource,
  ResourceKind,
  SwarmResource,
  ToolResource,
} from '../types/resources.ts';
import type { SandboxSpec } from '../types/sandbox.ts';
import { COMMON_SCHEMA_ID, commonSchema } from './common.ts';
import { KIND_SCHEMAS } from './kind-schemas.ts';
import { refsSchema } from './refs.ts';
import { compiledValidator, type Validator } from '../validation/compiled-validator.ts';

interface KindResource {
  Model: ModelResource;
  Agent: AgentResource;
  Swarm: SwarmResource;
  Tool: ToolResource;
  Extension: ExtensionResource;
  Connector: ConnectorResource;
  Connection: ConnectionResource;
  Package: PackageResource;
}

// verbose: errors carry parentSchema, used for "did you mean" suggestions on unknown fields.
const OPTIONS = { allErrors: true, verbose: true, strict: true, strictTypes: false } as const;

function kindValidatorOf<K extends ResourceKind>(kind: K): Validator<KindResource[K]> {
  return compiledValidator<KindResource[K]>({ schema: KIND_SCHEMAS[kind], refs: [commonSchema, refsSchema], options: OPTIONS });
}

const KIND_VALIDATORS: { [K in ResourceKind]: Validator<KindResource[K]> } = {
  Model: kindValidatorOf('Model'),
  Agent: kindValidatorOf('Agent'),
  Swarm: kindValidatorOf('Swarm'),
  Tool: kindValidatorOf('Tool'),
  Extension: kindValidatorOf('Extension'),
  Connector: kindValidatorOf('Connector'),
  Connection: kindValidatorOf('Connection'),
  Package: kindValidatorOf('Package'),
};

/** The schema validator of a Kind (a type guard for its resource type). */
export function kindValidator(kind: ResourceKind): Validator<AnyResource> {
  return KIND_VALIDATORS[kind];
}

// The draft-07 meta-schema ajv validates schemas with (verbose: problems quote the bad value).
const validateJsonSchema = compiledValidator<object>({ schema: { $ref: 'http://json-schema.org/draft-07/schema#' }, options: { allErrors: true, verbose: true, strict: false } });

/** Validates a whole document against its Kind's schema; returns ajv errors (empty when valid). */
export function schemaErrors(kind: ResourceKind, document: unknown): ErrorObject[] {
  const validate = kindValidator(kind);
  return validate(document) ? [] : [...(validate.errors ?? [])];
}

export interface JsonSchemaProblem {
  /** JSON pointer inside the schema, e.g. `/properties/count/type`. */
  pointer: string;
  message: string;
  /** Allowed values when the meta-schema restricts the value to a list (for "did you mean"). */
  allowed?: string[];
}

/**
 * Checks that a value is itself a valid JSON Schema (tool spec §15 "parameter schema is valid").
 * Only the meta-schema is applied, so unknown keywords stay allowed. One problem per location.
 */
export function jsonSchemaProblems(schema: unknown): JsonSchemaProblem[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [{ pointer: '', message: 'must be an object' }];
  if (validateJsonSchema(schema)) return [];
  const byPointer = new Map<string, JsonSchemaProblem>();
  for (const error of validateJsonSchema.errors ?? []) {
    const existing = byPointer.get(error.instancePath);
    const allowed: unknown = error.params.allowedValues;
    if (existing) {
      if (!existing.allowed && Array.isArray(allowed)) existing.allowed = allowed.map(String);
      continue;
    }
    const problem: JsonSchemaProblem = { pointer: error.instancePath, message: `${error.message ?? 'is invalid'} (got ${JSON.stringify(error.data)})` };
    if (Array.isArray(allowed)) problem.allowed = allowed.map(String);
    byPointer.set(error.instancePath, problem);
  }
  return [...byPointer.values()];
}

const sandboxValidator = compiledValidator<SandboxSpec>({ schema: { $ref: `${COMMON_SCHEMA_ID}#/definitions/sandbox` }, refs: [commonSchema, refsSchema], options: OPTIONS });

/** The validator of a `sandbox` block (also used where a block sits in free-form config: a tool ref's `config.sandbox`). */
export function sandboxSpecValidator(): Validator<SandboxSpec> {
  return sandboxValidator;
}
