import { describe, expect, test } from 'bun:test';
import { parseToolArguments, repairJsonText } from '../../agent-process/tools/json-repair.ts';
import { validateToolArgs } from '../../agent-process/tools/args-validation.ts';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';

const schema: JsonSchemaObject = { type: 'object', properties: { path: { type: 'string' }, n: { type: 'integer' } }, required: ['path'], additionalProperties: false };
const accepts = (value: Parameters<typeof validateToolArgs>[1]) => validateToolArgs(schema, value).ok;

describe('valid arguments pass through untouched', () => {
  test('a JSON object parses without repairs', () => {
    expect(parseToolArguments('{"path":"a"}', accepts)).toEqual({ ok: true, value: { path: 'a' }, repairs: [] });
  });
  test('an empty string means no arguments', () => {
    expect(parseToolArguments('  ', accepts)).toEqual({ ok: true, value: {}, repairs: [] });
  });
  test('valid JSON that is not an object is reported, not coerced', () => {
    expect(parseToolArguments('[1,2]', accepts)).toEqual({ ok: false, reason: 'arguments must be a JSON object, got array' });
    expect(parseToolArguments('"x"', accepts)).toEqual({ ok: false, reason: 'arguments must be a JSON object, got string' });
  });
});

describe('unambiguous damage is repaired (seed 004 §8)', () => {
  test('trailing text after the object', () => {
    const result = parseToolArguments('{"path":"a"} and that is all', accepts);
    expect(result).toMatchObject({ ok: true, value: { path: 'a' } });
    expect(result.ok && result.repairs).toContain('removed text after the JSON object');
  });
  test('a Markdown fence around the object', () => {
    expect(parseToolArguments('```json\n{"path":"a"}\n```', accepts)).toMatchObject({ ok: true, value: { path: 'a' } });
  });
  test('trailing commas', () => {
    expect(parseToolArguments('{"path":"a","n":1,}', accepts)).toMatchObject({ ok: true, value: { path: 'a', n: 1 } });
    expect(repairJsonText('{"a":[1,2,],}')?.text).toBe('{"a":[1,2]}');
  });
  test('an unclosed string and brace (truncated output)', () => {
    const result = parseToolArguments('{"path":"notes/a.txt', accepts);
    expect(result).toMatchObject({ ok: true, value: { path: 'notes/a.txt' } });
    expect(result.ok && result.repairs).toEqual(['closed an unterminated string', 'closed unclosed brackets']);
  });
  test('unclosed nested brackets close in reverse order', () => {
    expect(repairJsonText('{"a":{"b":[1,2')?.text).toBe('{"a":{"b":[1,2]}}');
  });
  test('braces inside strings do not count', () => {
    expect(parseToolArguments('{"path":"{not a brace}"} trailing', accepts)).toMatchObject({ ok: true, value: { path: '{not a brace}' } });
  });
});

describe('anything else is reported, never replaced by {}', () => {
  test('a key without a value is ambiguous', () => {
    const result = parseToolArguments('{"path":', accepts);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toStartWith('arguments are not valid JSON: ');
  });
  test('a repair whose result does not match the schema is rejected', () => {
    // Closing this gives {"n":1} which lacks the required `path`: not a safe guess.
    expect(parseToolArguments('{"n":1', accepts).ok).toBe(false);
  });
  test('text that is not an object at all', () => {
    expect(parseToolArguments('path=a', accepts).ok).toBe(false);
    expect(repairJsonText('path=a')).toBeNull();
  });
  test('mismatched brackets', () => {
    expect(repairJsonText('{"a":[1}')).toBeNull();
  });
  test('a string ending in a lone backslash', () => {
    expect(repairJsonText('{"path":"a\\')).toBeNull();
  });
});
