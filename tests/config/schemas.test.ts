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

describe('published schema (schemas/goondan.schema.json)', () => {
  test('is up to date: regenerate with `bun shared/schemas/publish.ts`', () => {
    expect(readFileSync(PUBLISHED, 'utf8')).toBe(publishedSchemaText());
  });

  test('is self-contained: every $ref is local', () => {
    const refs = [...readFileSync(PUBLISHED, 'utf8').matchAll(/"\$ref": "([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r?.startsWith('#/definitions/'))).toEqual([]);
  });
});
