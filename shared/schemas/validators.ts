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
import { commonSchema } from './common.ts';
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

/** Checks that a value is itself a valid JSON Schema (tool spec §15 "parameter schema is valid"). */
export function jsonSchemaProblems(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return ['must be an object'];
  const valid = ajv.validateSchema(schema);
  if (valid === true) return [];
  return (ajv.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}

/** Schema ids whose errors the loader drops because a dedicated check owns that part. */
export const OWNED_BY_REF_CHECK = 'goondan:refs#';
