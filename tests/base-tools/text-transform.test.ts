import { describe, expect, test } from 'bun:test';
import { handlers } from '../../bundles/base/tools/text-transform/index.ts';
import { callTool, toolError, toolContexts } from './tool-context.ts';

const newContext = toolContexts();
const ctx = () => newContext().ctx;

describe('text-transform__replace', () => {
  test('literal by default, every occurrence, with the count; $ patterns stay literal', async () => {
    expect(await callTool(handlers, 'replace', ctx(), { text: 'a.b.c', search: '.', replacement: '$&' })).toEqual({ text: 'a$&b$&c', replacements: 2 });
  });

  test('all: false replaces the first occurrence only', async () => {
    expect(await callTool(handlers, 'replace', ctx(), { text: 'x x x', search: 'x', replacement: 'y', all: false })).toEqual({ text: 'y x x', replacements: 1 });
  });

  test('regex mode supports groups in the replacement and ignoreCase', async () => {
    expect(await callTool(handlers, 'replace', ctx(), { text: 'John Smith, jane doe', search: '(\\w+) (\\w+)', replacement: '$2 $1', regex: true })).toEqual({ text: 'Smith John, doe jane', replacements: 2 });
    expect(await callTool(handlers, 'replace', ctx(), { text: 'Cat cat', search: 'cat', replacement: 'dog', regex: true, ignoreCase: true })).toEqual({ text: 'dog dog', replacements: 2 });
  });

  test('regex mode: named groups, $& and all: false', async () => {
    expect(await callTool(handlers, 'replace', ctx(), { text: '2024-05', search: '(?<y>\\d{4})-(?<m>\\d{2})', replacement: '$<m>/$<y> ($&)', regex: true })).toEqual({ text: '05/2024 (2024-05)', replacements: 1 });
    expect(await callTool(handlers, 'replace', ctx(), { text: 'a1 b2', search: '\\d', replacement: '#', regex: true, all: false })).toEqual({ text: 'a# b2', replacements: 1 });
  });

  test('regex mode runs in linear time: (a+)+$ against a long text completes', async () => {
    const text = `${'a'.repeat(200_000)}b`;
    expect(await callTool(handlers, 'replace', ctx(), { text, search: '(a+)+$', replacement: 'x', regex: true })).toEqual({ text, replacements: 0 });
  }, 20_000);

  test('backreferences and lookaround are E_TEXT_PATTERN naming the RE2 restriction', async () => {
    for (const search of ['(a)\\1', '(?<x>a)\\k<x>', 'a(?=b)', '(?<!a)b']) {
      const error = await toolError(callTool(handlers, 'replace', ctx(), { text: 'ab', search, replacement: '', regex: true }));
      expect(error.code).toBe('E_TEXT_PATTERN');
      expect(error.message).toContain('no backreferences');
      expect(error.suggestion).toContain('regex: false');
    }
  });

  test('an invalid regex is E_TEXT_PATTERN; an empty search is E_TEXT_EMPTY_SEARCH', async () => {
    expect((await toolError(callTool(handlers, 'replace', ctx(), { text: 'x', search: '[', replacement: '', regex: true }))).code).toBe('E_TEXT_PATTERN');
    expect((await toolError(callTool(handlers, 'replace', ctx(), { text: 'x', search: '', replacement: 'y' }))).code).toBe('E_TEXT_EMPTY_SEARCH');
  });
});

describe('text-transform__slice counts characters, not UTF-16 units', () => {
  test.each([
    [{ text: 'hello world', start: 6 }, 'world'],
    [{ text: 'hello world', start: -5, end: -1 }, 'worl'],
    [{ text: '😀😃😄', start: 1, end: 2 }, '😃'],
    [{ text: '한국어', end: 2 }, '한국'],
  ])('%j → %s', async (input, text) => {
    expect(await callTool(handlers, 'slice', ctx(), input)).toEqual({ text, length: Array.from(text).length });
  });
});

describe('text-transform__split and join', () => {
  test('splits on newlines by default', async () => {
    expect(await callTool(handlers, 'split', ctx(), { text: 'a\nb\nc' })).toEqual({ parts: ['a', 'b', 'c'], count: 3 });
  });

  test('limit keeps the rest of the text in the last part', async () => {
    expect(await callTool(handlers, 'split', ctx(), { text: 'k=v=w', separator: '=', limit: 2 })).toEqual({ parts: ['k', 'v=w'], count: 2 });
  });

  test('an empty separator splits into characters', async () => {
    expect(await callTool(handlers, 'split', ctx(), { text: 'a😀b', separator: '' })).toEqual({ parts: ['a', '😀', 'b'], count: 3 });
  });

  test('join uses newline by default', async () => {
    expect(await callTool(handlers, 'join', ctx(), { parts: ['a', 'b'] })).toEqual({ text: 'a\nb' });
    expect(await callTool(handlers, 'join', ctx(), { parts: ['a', 'b'], separator: ', ' })).toEqual({ text: 'a, b' });
  });
});

describe('text-transform__trim and case', () => {
  test('trim both sides by default, or one', async () => {
    expect(await callTool(handlers, 'trim', ctx(), { text: '  x \n' })).toEqual({ text: 'x' });
    expect(await callTool(handlers, 'trim', ctx(), { text: '  x  ', mode: 'start' })).toEqual({ text: 'x  ' });
    expect(await callTool(handlers, 'trim', ctx(), { text: '  x  ', mode: 'end' })).toEqual({ text: '  x' });
  });

  test.each([
    ['upper', 'parseHTTPResponse now', 'PARSEHTTPRESPONSE NOW'],
    ['lower', 'Hello World', 'hello world'],
    ['title', "hello wide-world it's", "Hello Wide-World It's"],
    ['snake', 'parseHTTPResponse v2', 'parse_http_response_v2'],
    ['kebab', 'Parse HTTP response', 'parse-http-response'],
    ['camel', 'parse_http_response', 'parseHttpResponse'],
    ['kebab', 'HTTP2Server', 'http2-server'],
    ['snake', '한국어 text', '한국어_text'],
  ])('%s: %s → %s', async (to, text, expected) => {
    expect(await callTool(handlers, 'case', ctx(), { text, to })).toEqual({ text: expected });
  });

  test.each([
    ['case', { text: 'x', to: 'shout' }],
    ['trim', { text: 'x', mode: 'middle' }],
    ['join', { parts: 'a,b' }],
    ['slice', { text: 'x', start: 1.5 }],
    ['split', { text: 'x', limit: 0 }],
    ['replace', { text: 'x', search: 'x' }],
  ])('%s %j → E_TOOL_INVALID_ARGS', async (name, input) => {
    expect((await toolError(callTool(handlers, name, ctx(), input))).code).toBe('E_TOOL_INVALID_ARGS');
  });
});
