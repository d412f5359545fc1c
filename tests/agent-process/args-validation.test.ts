import { describe, expect, test } from 'bun:test';
import { validateToolArgs, validatorFor } from '../../agent-process/tools/args-validation.ts';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';

const schema: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: {
    command: { type: 'string' },
    count: { type: 'integer' },
    mode: { enum: ['fast', 'slow'] },
    either: { type: ['string', 'number'] },
    tags: { type: 'array', items: { type: 'string' } },
    nested: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'] },
  },
  required: ['command'],
};

describe('argument pre-validation (SPEC.md §5.2)', () => {
  test('valid arguments pass', () => {
    expect(validateToolArgs(schema, { command: 'ls', count: 2, mode: 'fast', either: 3, tags: ['a'], nested: { flag: true } })).toEqual({ ok: true, issues: [] });
  });

  test('a wrong type reads `args.x: expected string, got number`', () => {
    const check = validateToolArgs(schema, { command: 42 });
    expect(check.ok).toBe(false);
    expect(check.issues).toEqual(['args.command: expected string, got integer']);
  });

  test('integer, unions, enum, additionalProperties, nested properties and items are checked', () => {
    const check = validateToolArgs(schema, { command: 'x', count: 1.5, mode: 'medium', either: true, extra: 1 });
    expect(check.issues).toContain('args.count: expected integer, got number');
    expect(check.issues).toContain('args.mode: must be one of "fast", "slow", got "medium"');
    expect(check.issues).toContain('args.either: expected string or number, got boolean');
    expect(check.issues).toContain('args.extra: unknown property (not allowed)');
    const nested = validateToolArgs(schema, { command: 'x', tags: ['a', 2], nested: {} });
    expect(nested.issues).toContain('args.tags[1]: expected string, got integer');
    expect(nested.issues).toContain('args.nested.flag: required property is missing');
  });

  test('a missing required key is named', () => {
    expect(validateToolArgs(schema, {}).issues).toEqual(['args.command: required property is missing']);
  });

  test('at most 5 problems are listed, then a count of the rest', () => {
    const many = validateToolArgs({ type: 'object', additionalProperties: false, properties: {} }, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 });
    expect(many.issues).toHaveLength(6);
    expect(many.issues[5]).toBe('… and 2 more');
  });

  test('the suggestion names required and allowed keys', () => {
    expect(validateToolArgs(schema, {}).suggestion).toBe(
      'Call the tool again with arguments matching its parameters. Required keys: command. Allowed keys: command, count, mode, either, tags, nested.',
    );
  });

  test('a schema is compiled once and reused (by identity and by text)', () => {
    expect(validatorFor(schema)).toBe(validatorFor(schema));
    expect(validatorFor(structuredClone(schema))).toBe(validatorFor(schema));
  });

  test('no schema accepts any object', () => {
    expect(validateToolArgs(undefined, { anything: true }).ok).toBe(true);
  });
});
