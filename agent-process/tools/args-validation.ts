/**
 * Tool arguments checked against the export's JSON Schema before the handler runs (SPEC.md §5.2):
 * problems are listed readably (`args.x: expected string, got number`, at most 5) with a
 * suggestion naming the required and allowed keys. `argsWithDefaults` also fills in the schema's
 * `default`s (on a copy) for the handler; results are checked against `returns` the same way.
 */
import type { ErrorObject } from 'ajv';
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';
import type { Validator } from '../../shared/validation/compiled-validator.ts';
import { agentValidator } from '../validation/agent-validator.ts';
import { describeJsonType } from './json-repair.ts';

const MAX_ISSUES = 5;
const EMPTY_SCHEMA: JsonSchemaObject = { type: 'object' };

/**
 * Validators of one setting (plain, or filling in defaults), by schema identity and, failing that,
 * by text. Each is generated once and cached on disk; a schema ajv cannot compile throws on its
 * first call.
 */
class ValidatorCache {
  // Catalog items are rebuilt every step but keep their schema objects, so identity caching hits;
  // middleware that clones a schema falls back to the text key.
  private readonly byIdentity = new WeakMap<object, Validator<JsonValue>>();
  private readonly byText = new Map<string, Validator<JsonValue>>();

  constructor(private readonly fillDefaults: boolean) {}

  get(schema: object): Validator<JsonValue> {
    const known = this.byIdentity.get(schema);
    if (known) return known;
    const text = JSON.stringify(schema);
    let validate = this.byText.get(text);
    if (!validate) {
      validate = agentValidator<JsonValue>(schema, this.fillDefaults);
      this.byText.set(text, validate);
    }
    this.byIdentity.set(schema, validate);
    return validate;
  }
}

const plain = new ValidatorCache(false);
const filling = new ValidatorCache(true);

export function validatorFor(schema: JsonSchemaObject | undefined): Validator<JsonValue> {
  return plain.get(schema ?? EMPTY_SCHEMA);
}

export interface ArgsCheck {
  ok: boolean;
  issues: string[];
  suggestion?: string;
}

/** Checks `args` without changing them (e.g. whether a repaired argument text is acceptable). */
export function validateToolArgs(schema: JsonSchemaObject | undefined, args: JsonObject): ArgsCheck {
  return check(plain, schema, args, 'args');
}

/** A copy of `args` with the schema's defaults filled in, and the check of that copy. */
export function argsWithDefaults(schema: JsonSchemaObject | undefined, args: JsonObject): { args: JsonObject; check: ArgsCheck } {
  const copy = structuredClone(args);
  return { args: copy, check: check(filling, schema, copy, 'args') };
}

/** A handler's output against the export's `returns` schema (issues read `result.x: …`). */
export function validateToolResult(schema: JsonObject, output: JsonValue): ArgsCheck {
  const validate = plain.get(schema);
  try {
    if (validate(output)) return { ok: true, issues: [] };
  } catch (error) {
    return { ok: false, issues: [`the tool's returns schema is invalid: ${error instanceof Error ? error.message : String(error)}`] };
  }
  return { ok: false, issues: issuesOf(validate.errors ?? [], output, 'result') };
}

function check(cache: ValidatorCache, schema: JsonSchemaObject | undefined, args: JsonObject, root: string): ArgsCheck {
  const validate = cache.get(schema ?? EMPTY_SCHEMA);
  try {
    if (validate(args)) return { ok: true, issues: [] };
  } catch (error) {
    // A schema ajv cannot compile (at its first use) is the tool author's bug; the call cannot be checked safely.
    return { ok: false, issues: [`the tool's parameter schema is invalid: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const issues = issuesOf(validate.errors ?? [], args, root);
  const suggestion = suggestKeys(schema);
  return suggestion === undefined ? { ok: false, issues } : { ok: false, issues, suggestion };
}

function issuesOf(errors: ErrorObject[], value: JsonValue, root: string): string[] {
  const issues = errors.slice(0, MAX_ISSUES).map((error) => describeIssue(error, value, root));
  if (errors.length > MAX_ISSUES) issues.push(`… and ${errors.length - MAX_ISSUES} more`);
  return issues;
}

function describeIssue(error: ErrorObject, args: JsonValue, root: string): string {
  const at = `${root}${pointerToPath(error.instancePath)}`;
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case 'type':
      return `${at}: expected ${String(params.type).split(',').join(' or ')}, got ${describeJsonType(valueAt(args, error.instancePath))}`;
    case 'required':
      return `${at}${keySuffix(params.missingProperty)}: required property is missing`;
    case 'additionalProperties':
      return `${at}${keySuffix(params.additionalProperty)}: unknown property (not allowed)`;
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues.map((v) => JSON.stringify(v)).join(', ') : '';
      return `${at}: must be one of ${allowed}, got ${JSON.stringify(valueAt(args, error.instancePath))}`;
    }
    default:
      return `${at}: ${error.message ?? error.keyword}`;
  }
}

function keySuffix(key: unknown): string {
  return typeof key === 'string' ? pointerToPath(`/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`) : '';
}

/** `/a/0/b` → `.a[0].b` */
function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((key) => (/^\d+$/.test(key) ? `[${key}]` : /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`))
    .join('');
}

function valueAt(root: JsonValue, pointer: string): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current)) current = current[Number(key)];
    else if (current !== null && typeof current === 'object') current = current[key];
    else return undefined;
  }
  return current;
}

function suggestKeys(schema: JsonSchemaObject | undefined): string | undefined {
  if (!schema) return undefined;
  const required = schema.required ?? [];
  const allowed = Object.keys(schema.properties ?? {});
  const parts: string[] = [];
  parts.push(required.length > 0 ? `Required keys: ${required.join(', ')}.` : 'No keys are required.');
  if (allowed.length > 0) parts.push(`Allowed keys: ${allowed.join(', ')}.`);
  return `Call the tool again with arguments matching its parameters. ${parts.join(' ')}`;
}
