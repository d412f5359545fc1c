/**
 * The ajv instance of the config plane. Each Kind's validator is compiled once, on first use, and
 * doubles as a type guard for the typed resource.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
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
const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false });
ajv.addSchema(commonSchema);
ajv.addSchema(refsSchema);

const compiled = new Map<ResourceKind, ValidateFunction<AnyResource>>();

function compileKind<K extends ResourceKind>(kind: K): ValidateFunction<KindResource[K]> {
  return ajv.compile<KindResource[K]>(KIND_SCHEMAS[kind]);
}

/** The compiled schema validator of a Kind (a type guard for its resource type). */
export function kindValidator(kind: ResourceKind): ValidateFunction<AnyResource> {
  let validate = compiled.get(kind);
  if (!validate) {
    validate = compileKind(kind);
    compiled.set(kind, validate);
  }
  return validate;
}

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
  if (ajv.validateSchema(schema) === true) return [];
  const byPointer = new Map<string, JsonSchemaProblem>();
  for (const error of ajv.errors ?? []) {
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

let sandboxValidator: ValidateFunction<SandboxSpec> | undefined;

/** The validator of a `sandbox` block (also used where a block sits in free-form config: a tool ref's `config.sandbox`). */
export function sandboxSpecValidator(): ValidateFunction<SandboxSpec> {
  sandboxValidator ??= ajv.compile<SandboxSpec>({ $ref: `${COMMON_SCHEMA_ID}#/definitions/sandbox` });
  return sandboxValidator;
}
