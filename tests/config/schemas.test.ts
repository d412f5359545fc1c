/** The per-Kind JSON Schemas and the published editor schema. */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KIND_SCHEMAS, kindValidator, publishedSchemaText } from '../../shared/schemas/index.ts';
import { isJsonObject, type JsonValue } from '../../shared/types/json.ts';
import { RESOURCE_KINDS } from '../../shared/types/resources.ts';
import { commonSchema } from '../../shared/schemas/common.ts';
import { refsSchema } from '../../shared/schemas/refs.ts';

const PUBLISHED = join(import.meta.dir, '..', '..', 'schemas', 'goondan.schema.json');

/** Paths of property schemas that lack a description (a `$ref` carries its definition's). */
function undescribed(schema: JsonValue, path: string, out: string[]): void {
  if (!isJsonObject(schema)) return;
  const { properties, items, additionalProperties, anyOf, definitions } = schema;
  if (isJsonObject(properties)) {
    for (const [name, child] of Object.entries(properties)) {
      if (isJsonObject(child) && typeof child.description !== 'string' && typeof child.$ref !== 'string') out.push(`${path}.${name}`);
      undescribed(child, `${path}.${name}`, out);
    }
  }
  undescribed(items ?? null, `${path}[]`, out);
  undescribed(additionalProperties ?? null, `${path}{}`, out);
  if (Array.isArray(anyOf)) anyOf.forEach((branch, i) => undescribed(branch, `${path}|${i}`, out));
  if (isJsonObject(definitions)) for (const [name, def] of Object.entries(definitions)) undescribed(def, `${path}#${name}`, out);
}

describe('schemas', () => {
  test('every Kind has a schema and it compiles', () => {
    for (const kind of RESOURCE_KINDS) expect(typeof kindValidator(kind)).toBe('function');
  });

  test('every field has a description (for editor hovers and completion)', () => {
    const missing: string[] = [];
    for (const kind of RESOURCE_KINDS) undescribed(KIND_SCHEMAS[kind], kind, missing);
    undescribed(commonSchema, 'common', missing);
    undescribed(refsSchema, 'refs', missing);
    expect(missing).toEqual([]);
  });

  test('unknown fields are rejected at every level of a resource', () => {
    const model = { apiVersion: 'goondan.ai/v1', kind: 'Model', metadata: { name: 'm' }, spec: { provider: 'mock', model: 'x' } };
    const validate = kindValidator('Model');
    expect(validate(model)).toBe(true);
    expect(validate({ ...model, extra: 1 })).toBe(false);
    expect(validate({ ...model, metadata: { name: 'm', owner: 'me' } })).toBe(false);
    expect(validate({ ...model, spec: { ...model.spec, temperature: 1 } })).toBe(false);
  });

  test('export parameters keep their own keywords free', () => {
    const tool = {
      apiVersion: 'goondan.ai/v1',
      kind: 'Tool',
      metadata: { name: 't' },
      spec: { entry: './t.ts', exports: [{ name: 'run', description: 'Run.', parameters: { type: 'object', 'x-ui-hint': 'wide', properties: {} } }] },
    };
    expect(kindValidator('Tool')(tool)).toBe(true);
  });

  test('only the SPEC.md §1.2 policy keys are allowed on a Swarm', () => {
    const swarm = (policy: object) => ({ apiVersion: 'goondan.ai/v1', kind: 'Swarm', metadata: { name: 's' }, spec: { entryAgent: 'Agent/a', agents: ['Agent/a'], policy } });
    const validate = kindValidator('Swarm');
    expect(validate(swarm({ maxStepsPerTurn: 4, lifecycle: { ttlSeconds: 1, gcGraceSeconds: 2 }, shutdown: { gracePeriodSeconds: 3 } }))).toBe(true);
    expect(validate(swarm({ retries: 3 }))).toBe(false);
  });
});

/** Paths (in the published file) of schemas that put keywords beside `$ref`, which draft-07 ignores. */
function refsWithSiblings(schema: JsonValue, path: string, out: string[]): void {
  if (Array.isArray(schema)) schema.forEach((item, i) => refsWithSiblings(item, `${path}/${i}`, out));
  if (!isJsonObject(schema)) return;
  if (typeof schema.$ref === 'string' && Object.keys(schema).length > 1) out.push(path);
  for (const [key, child] of Object.entries(schema)) refsWithSiblings(child, `${path}/${key}`, out);
}

/** Every property that points at a definition, with its own description (or undefined). */
function referencingProperties(schema: JsonValue, path: string, out: Array<{ path: string; description: JsonValue | undefined }>): void {
  if (Array.isArray(schema)) schema.forEach((item, i) => referencingProperties(item, `${path}/${i}`, out));
  if (!isJsonObject(schema)) return;
  if (isJsonObject(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) {
      const refers = isJsonObject(child) && (typeof child.$ref === 'string' || (Array.isArray(child.allOf) && child.allOf.some((b) => isJsonObject(b) && typeof b.$ref === 'string')));
      if (refers && isJsonObject(child)) out.push({ path: `${path}/properties/${name}`, description: child.description });
    }
  }
  for (const [key, child] of Object.entries(schema)) referencingProperties(child, `${path}/${key}`, out);
}

describe('published schema (schemas/goondan.schema.json)', () => {
  test('no $ref has sibling keywords (draft-07 editors would drop them): a described $ref is wrapped in allOf', () => {
    const published: JsonValue = JSON.parse(readFileSync(PUBLISHED, 'utf8'));
    const offenders: string[] = [];
    refsWithSiblings(published, '#', offenders);
    expect(offenders).toEqual([]);
  });

  test('every property with a $ref keeps its own description', () => {
    const published: JsonValue = JSON.parse(readFileSync(PUBLISHED, 'utf8'));
    const found: Array<{ path: string; description: JsonValue | undefined }> = [];
    referencingProperties(published, '#', found);
    // e.g. Agent spec.modelConfig.modelRef, Model spec.apiKey, Connection spec.swarmRef.
    expect(found.length).toBeGreaterThanOrEqual(10);
    expect(found.filter((p) => typeof p.description !== 'string' || p.description === '').map((p) => p.path)).toEqual([]);
    const modelRef = found.find((p) => p.path.endsWith('/Agent/properties/spec/properties/modelConfig/properties/modelRef'));
    expect(modelRef?.description).toBe('The Model, e.g. "Model/default".');
  });

  test('is up to date: regenerate with `bun shared/schemas/publish.ts`', () => {
    expect(readFileSync(PUBLISHED, 'utf8')).toBe(publishedSchemaText());
  });

  test('is self-contained: every $ref is local', () => {
    const refs = [...readFileSync(PUBLISHED, 'utf8').matchAll(/"\$ref": "([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r?.startsWith('#/definitions/'))).toEqual([]);
  });
});
