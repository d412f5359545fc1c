import { describe, expect, test } from 'bun:test';
import { handlers } from '../../bundles/base/tools/json-query/index.ts';
import { jsonErrorOffset } from '../../bundles/base/tools/json-query/json-error-position.ts';
import { callTool, toolError, toolContexts } from './tool-context.ts';

const newContext = toolContexts();
const ctx = () => newContext().ctx;

const doc = JSON.stringify({
  users: [
    { id: 1, name: 'Ann', tags: ['a', 'b'], 'e.mail': 'ann@x' },
    { id: 2, name: 'Bo', tags: [['c'], ['d', ['e']]] },
  ],
  total: 2,
});

describe('json-query__query reads paths like a.b[0].c', () => {
  test.each([
    ['users[0].name', 'Ann'],
    ['users[-1].id', 2],
    ['$.total', 2],
    ['users[0]["e.mail"]', 'ann@x'],
    ['users[1].tags[1][1][0]', 'e'],
  ])('%s', async (path, value) => {
    expect(await callTool(handlers, 'query', ctx(), { data: doc, path })).toEqual({ path: expect.any(String), found: true, value });
  });

  test('no path returns the whole document', async () => {
    expect(await callTool(handlers, 'query', ctx(), { data: '[1,2]' })).toEqual({ path: '', found: true, value: [1, 2] });
  });

  test('a missing path answers found: false with where it stopped and what is there', async () => {
    expect(await callTool(handlers, 'query', ctx(), { data: doc, path: 'users[0].email' })).toEqual({
      path: 'users[0].email',
      found: false,
      value: null,
      missingAt: 'users[0].email',
      available: { type: 'object', keys: ['id', 'name', 'tags', 'e.mail'] },
    });
    expect(await callTool(handlers, 'query', ctx(), { data: doc, path: 'users[5]' })).toMatchObject({ found: false, available: { type: 'array', length: 2 } });
  });

  test('a malformed path is E_JSON_PATH with the position', async () => {
    const error = await toolError(callTool(handlers, 'query', ctx(), { data: doc, path: 'users[x]' }));
    expect(error.code).toBe('E_JSON_PATH');
    expect(error.message).toContain('position 5');
  });
});

describe('bad JSON is E_JSON_PARSE with the position', () => {
  test('line, column and offset of the first bad character', async () => {
    const error = await toolError(callTool(handlers, 'query', ctx(), { data: '{\n  "a": 1,\n  "b": tru\n}' }));
    expect(error.code).toBe('E_JSON_PARSE');
    expect(error.message).toContain('unexpected "t" at line 3, column 8');
    expect(error.details).toEqual({ offset: 19, line: 3, column: 8 });
    expect(error.suggestion).toBeDefined();
  });

  test.each([
    ['{"a": 1,}', 8],
    ["{'a': 1}", 1],
    ['[1, 2', 5],
    ['{"a": 01}', 7],
    ['"tab\there"', 4],
    ['{"a": 1} x', 9],
    ['[nul]', 1],
    ['', 0],
  ])('%j fails at offset %d', (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
  });

  test('the locator accepts every valid document', () => {
    for (const text of [doc, '1', '-0.5e+3', '"\\u00e9\\n"', ' [ ] ', '{"a":{"b":[null,true,false]}}']) expect(jsonErrorOffset(text)).toBeUndefined();
  });
});

describe('json-query__pick, count and flatten', () => {
  test('pick keeps the listed keys of an object or of each object in an array', async () => {
    expect(await callTool(handlers, 'pick', ctx(), { data: doc, path: 'users', keys: ['id', 'name', 'nope'] })).toEqual({ value: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bo' }], count: 2 });
    expect(await callTool(handlers, 'pick', ctx(), { data: doc, keys: ['total'] })).toEqual({ value: { total: 2 } });
  });

  test('pick on a scalar or an array of scalars is E_JSON_TYPE', async () => {
    expect((await toolError(callTool(handlers, 'pick', ctx(), { data: '[1]', keys: ['a'] }))).code).toBe('E_JSON_TYPE');
    expect((await toolError(callTool(handlers, 'pick', ctx(), { data: doc, path: 'total', keys: ['a'] }))).code).toBe('E_JSON_TYPE');
  });

  test('count counts array items or object keys', async () => {
    expect(await callTool(handlers, 'count', ctx(), { data: doc, path: 'users' })).toEqual({ type: 'array', count: 2 });
    expect(await callTool(handlers, 'count', ctx(), { data: doc })).toEqual({ type: 'object', count: 2 });
    expect((await toolError(callTool(handlers, 'count', ctx(), { data: doc, path: 'total' }))).code).toBe('E_JSON_TYPE');
    expect((await toolError(callTool(handlers, 'count', ctx(), { data: doc, path: 'nope' }))).code).toBe('E_JSON_PATH_NOT_FOUND');
  });

  test('flatten flattens depth levels (default 1)', async () => {
    const data = '[1, [2, [3, [4]]]]';
    expect(await callTool(handlers, 'flatten', ctx(), { data })).toEqual({ value: [1, 2, [3, [4]]], length: 3 });
    expect(await callTool(handlers, 'flatten', ctx(), { data, depth: 3 })).toEqual({ value: [1, 2, 3, 4], length: 4 });
    expect(await callTool(handlers, 'flatten', ctx(), { data: doc, path: 'users[1].tags' })).toEqual({ value: ['c', 'd', ['e']], length: 3 });
    expect((await toolError(callTool(handlers, 'flatten', ctx(), { data: '{}' }))).code).toBe('E_JSON_TYPE');
  });

  test.each([
    ['query', { data: { a: 1 } }],
    ['query', { path: 'a' }],
    ['pick', { data: '{}', keys: [] }],
    ['count', { data: '{}', path: 1 }],
    ['flatten', { data: '[]', depth: 0 }],
  ])('%s %j → E_TOOL_INVALID_ARGS', async (name, input) => {
    expect((await toolError(callTool(handlers, name, ctx(), input))).code).toBe('E_TOOL_INVALID_ARGS');
  });
});
