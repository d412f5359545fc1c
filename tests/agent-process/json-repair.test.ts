import { describe, expect, test } from 'bun:test';
import { parseToolArguments, repairJsonText } from '../../agent-process/tools/json-repair.ts';
import { validateToolArgs } from '../../agent-process/tools/args-validation.ts';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';

const schema: JsonSchemaObject = { type: 'object', properties: { path: { type: 'string' }, n: { type: 'integer' } }, required: ['path'], additionalProperties: false };
const accepts = (value: Parameters<typeof validateToolArgs>[1]) => validateToolArgs(schema, value).ok;
const anyObject = () => true;

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

describe('only damage whose repair cannot change the meaning is repaired (seed 004 §8)', () => {
  test('a Markdown code fence around the object', () => {
    const result = parseToolArguments('```json\n{"path":"a"}\n```', accepts);
    expect(result).toEqual({ ok: true, value: { path: 'a' }, repairs: ['removed a Markdown code fence'] });
  });
  test('trailing commas', () => {
    expect(parseToolArguments('{"path":"a","n":1,}', accepts)).toMatchObject({ ok: true, value: { path: 'a', n: 1 } });
    expect(repairJsonText('{"a":[1,2,],}')).toEqual({ ok: true, text: '{"a":[1,2]}', repairs: ['removed a trailing comma', 'removed a trailing comma'] });
  });
  test('a byte-order mark before the object', () => {
    expect(parseToolArguments('\uFEFF{"path":"a"}', accepts)).toEqual({ ok: true, value: { path: 'a' }, repairs: ['removed a byte-order mark'] });
  });
  test('commas and brackets inside strings are content, not damage', () => {
    expect(parseToolArguments('{"path":"{a,}",}', accepts)).toMatchObject({ ok: true, value: { path: '{a,}' } });
  });
});

describe('truncated arguments are never completed (E_TOOL_INVALID_ARGS upstream)', () => {
  test('a command cut off mid-string is refused, not closed', () => {
    const result = parseToolArguments('{"command": "rm -rf ./build', anyObject);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain('ends inside a string');
  });
  test('an unclosed object is refused', () => {
    const result = parseToolArguments('{"path":"notes/a.txt"', accepts);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain('unclosed object or array');
  });
  test('an unclosed array is refused', () => {
    expect(parseToolArguments('{"path":"a","tags":["x","y"', anyObject).ok).toBe(false);
    expect(repairJsonText('{"a":{"b":[1,2')).toEqual({ ok: false, damage: 'the text ends inside an unclosed object or array: the output looks cut off' });
  });
  test('a key without a value is refused', () => {
    const result = parseToolArguments('{"path":', accepts);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toStartWith('arguments are not valid JSON');
  });
  test('a string ending in a lone backslash is refused', () => {
    expect(repairJsonText('{"path":"a\\').ok).toBe(false);
  });
});

describe('anything else is reported, never replaced by {}', () => {
  test('text after the object is refused: it may be a second call or the rest of a broken string', () => {
    expect(parseToolArguments('{"path":"a"} and that is all', accepts).ok).toBe(false);
    expect(parseToolArguments('{"path":"a"}{"path":"b"}', accepts).ok).toBe(false);
  });
  test('an empty element is not a trailing comma', () => {
    expect(repairJsonText('{"a":[,]}').ok).toBe(false);
    expect(repairJsonText('{"a":[1,,]}').ok).toBe(false);
  });
  test('a repair whose result does not match the schema is rejected', () => {
    // Removing the comma gives {"n":1}, which lacks the required `path`.
    expect(parseToolArguments('{"n":1,}', accepts).ok).toBe(false);
  });
  test('text that is not an object at all', () => {
    expect(parseToolArguments('path=a', accepts).ok).toBe(false);
    expect(repairJsonText('path=a').ok).toBe(false);
  });
  test('mismatched brackets', () => {
    expect(repairJsonText('{"a":[1}').ok).toBe(false);
  });
});
