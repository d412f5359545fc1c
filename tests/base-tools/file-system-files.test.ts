import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handlers } from '../../bundles/base/tools/file-system/index.ts';
import { asObject, callTool, toolError, type TestToolContext, toolContexts } from './tool-context.ts';

const setup = toolContexts();

const call = (t: TestToolContext, name: string, input: unknown) => callTool(handlers, name, t.ctx, input);
const run = async (t: TestToolContext, name: string, input: unknown) => asObject(await call(t, name, input));

describe('file-system__read', () => {
  test('reads a whole small text file with its size', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'a.txt'), 'line 1\nline 2\n');
    expect(await run(t, 'read', { path: 'a.txt' })).toEqual({ path: 'a.txt', size: 14, offset: 0, bytesRead: 14, truncated: false, nextOffset: null, content: 'line 1\nline 2\n' });
  });

  test('maxBytes cuts the content, truncated and nextOffset let the caller page on', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'big.txt'), 'x'.repeat(250_000));
    const first = await run(t, 'read', { path: 'big.txt' });
    expect(first).toMatchObject({ size: 250_000, bytesRead: 100_000, truncated: true, nextOffset: 100_000 });
    expect(String(first.content)).toHaveLength(100_000);
    const last = await run(t, 'read', { path: 'big.txt', offset: 200_000 });
    expect(last).toMatchObject({ bytesRead: 50_000, truncated: false, nextOffset: null });
  });

  test('the window never splits a UTF-8 character', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'ko.txt'), '가나다라'); // 3 bytes each
    const first = await run(t, 'read', { path: 'ko.txt', maxBytes: 4 });
    expect(first).toMatchObject({ content: '가', bytesRead: 3, nextOffset: 3 });
    const middle = await run(t, 'read', { path: 'ko.txt', offset: 4, maxBytes: 6 });
    expect(middle).toMatchObject({ content: '다', offset: 6 });
  });

  test('maxBytes is bounded by config.maxReadBytes', async () => {
    const t = setup({ maxReadBytes: 10 });
    writeFileSync(join(t.workdir, 'a.txt'), 'abcdefghijklmnop');
    expect(await run(t, 'read', { path: 'a.txt', maxBytes: 1_000_000 })).toMatchObject({ content: 'abcdefghij', truncated: true });
  });

  test('binary files are described (E_FS_BINARY with the size), not dumped', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    const error = await toolError(call(t, 'read', { path: 'image.png' }));
    expect(error.code).toBe('E_FS_BINARY');
    expect(error.message).toContain('12 bytes');
    writeFileSync(join(t.workdir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect((await toolError(call(t, 'read', { path: 'latin1.txt' }))).message).toContain('not valid UTF-8');
  });

  test('missing file, directory and offset past the end have their own codes', async () => {
    const t = setup();
    mkdirSync(join(t.workdir, 'dir'));
    writeFileSync(join(t.workdir, 'a.txt'), 'abc');
    const missing = await toolError(call(t, 'read', { path: 'nope.txt' }));
    expect(missing.code).toBe('E_FS_NOT_FOUND');
    expect(missing.suggestion).toContain('file-system__list');
    expect((await toolError(call(t, 'read', { path: 'dir' }))).code).toBe('E_FS_IS_DIRECTORY');
    expect((await toolError(call(t, 'read', { path: 'a.txt', offset: 4 }))).code).toBe('E_FS_OFFSET');
  });
});

describe('file-system__write', () => {
  test('creates parents, overwrites, appends, and says which it did', async () => {
    const t = setup();
    expect(await run(t, 'write', { path: 'deep/er/file.txt', content: 'one\n' })).toEqual({ path: 'deep/er/file.txt', bytesWritten: 4, size: 4, created: true, appended: false });
    expect(await run(t, 'write', { path: 'deep/er/file.txt', content: 'two\n', append: true })).toMatchObject({ size: 8, created: false, appended: true });
    expect(readFileSync(join(t.workdir, 'deep/er/file.txt'), 'utf8')).toBe('one\ntwo\n');
    await run(t, 'write', { path: 'deep/er/file.txt', content: 'three' });
    expect(readFileSync(join(t.workdir, 'deep/er/file.txt'), 'utf8')).toBe('three');
  });

  test('content over config.maxWriteBytes is refused (E_FS_TOO_LARGE) and nothing is written', async () => {
    const t = setup({ maxWriteBytes: 100 });
    const error = await toolError(call(t, 'write', { path: 'big.txt', content: 'x'.repeat(101) }));
    expect(error.code).toBe('E_FS_TOO_LARGE');
    expect(error.message).toContain('101 bytes');
    expect(existsSync(join(t.workdir, 'big.txt'))).toBe(false);
  });

  test('the default write limit is 10 MB', async () => {
    const t = setup();
    expect((await toolError(call(t, 'write', { path: 'big.txt', content: 'x'.repeat(10_000_001) }))).code).toBe('E_FS_TOO_LARGE');
  });

  test('writing onto a directory is E_FS_IS_DIRECTORY', async () => {
    const t = setup();
    mkdirSync(join(t.workdir, 'dir'));
    expect((await toolError(call(t, 'write', { path: 'dir', content: 'x' }))).code).toBe('E_FS_IS_DIRECTORY');
  });
});

describe('file-system__edit is an exact, unique find/replace', () => {
  const source = 'function a() {\n  return 1;\n}\nfunction b() {\n  return 1;\n}\n';

  test('replaces the single occurrence and reports where', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'x.js'), source);
    const out = await run(t, 'edit', { path: 'x.js', oldText: 'function b() {\n  return 1;', newText: 'function b() {\n  return 2;' });
    expect(out).toMatchObject({ path: 'x.js', replacements: 1, firstLine: 4 });
    expect(readFileSync(join(t.workdir, 'x.js'), 'utf8')).toBe(source.replace('b() {\n  return 1;', 'b() {\n  return 2;'));
  });

  test('a non-unique match fails with E_FS_NOT_UNIQUE, the count and the lines; the file is unchanged', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'x.js'), source);
    const error = await toolError(call(t, 'edit', { path: 'x.js', oldText: 'return 1;', newText: 'return 3;' }));
    expect(error.code).toBe('E_FS_NOT_UNIQUE');
    expect(error.message).toContain('2 times');
    expect(error.details).toMatchObject({ count: 2, lines: [2, 5] });
    expect(error.suggestion).toContain('replaceAll');
    expect(readFileSync(join(t.workdir, 'x.js'), 'utf8')).toBe(source);
  });

  test('replaceAll changes every occurrence', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'x.js'), source);
    expect(await run(t, 'edit', { path: 'x.js', oldText: 'return 1;', newText: 'return 3;', replaceAll: true })).toMatchObject({ replacements: 2 });
    expect(readFileSync(join(t.workdir, 'x.js'), 'utf8')).not.toContain('return 1;');
  });

  test('no match is E_FS_NO_MATCH, with a hint when only whitespace differs', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'x.js'), source);
    const absent = await toolError(call(t, 'edit', { path: 'x.js', oldText: 'return 9;', newText: 'x' }));
    expect(absent.code).toBe('E_FS_NO_MATCH');
    const spaced = await toolError(call(t, 'edit', { path: 'x.js', oldText: 'function a() {\n    return 1;', newText: 'x' }));
    expect(spaced.code).toBe('E_FS_NO_MATCH');
    expect(spaced.suggestion).toContain('whitespace');
  });

  test('replacement text is literal ($& and $1 are not patterns)', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'p.txt'), 'price: X');
    await run(t, 'edit', { path: 'p.txt', oldText: 'X', newText: '$& $1 $$' });
    expect(readFileSync(join(t.workdir, 'p.txt'), 'utf8')).toBe('price: $& $1 $$');
  });

  test('LF oldText matches a CRLF file and the edit keeps CRLF', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'w.txt'), 'one\r\ntwo\r\nthree\r\n');
    await run(t, 'edit', { path: 'w.txt', oldText: 'one\ntwo', newText: 'uno\ndos' });
    expect(readFileSync(join(t.workdir, 'w.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  test('empty oldText, identical texts, missing and binary files are refused', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'a.txt'), 'abc');
    writeFileSync(join(t.workdir, 'b.bin'), Buffer.from([1, 0, 2]));
    expect((await toolError(call(t, 'edit', { path: 'a.txt', oldText: '', newText: 'x' }))).code).toBe('E_FS_EDIT_EMPTY');
    expect((await toolError(call(t, 'edit', { path: 'a.txt', oldText: 'a', newText: 'a' }))).code).toBe('E_FS_EDIT_NOOP');
    expect((await toolError(call(t, 'edit', { path: 'missing.txt', oldText: 'a', newText: 'b' }))).code).toBe('E_FS_NOT_FOUND');
    expect((await toolError(call(t, 'edit', { path: 'b.bin', oldText: 'a', newText: 'b' }))).code).toBe('E_FS_BINARY');
  });
});

describe('file-system__list and file-system__mkdir', () => {
  test('lists one level by default, recursively on request, with types and sizes', async () => {
    const t = setup();
    mkdirSync(join(t.workdir, 'src/lib'), { recursive: true });
    writeFileSync(join(t.workdir, 'src/lib/a.ts'), 'abc');
    writeFileSync(join(t.workdir, 'README.md'), '#');
    const flat = await run(t, 'list', {});
    expect(flat.entries).toEqual([
      { path: 'README.md', name: 'README.md', type: 'file', size: 1 },
      { path: 'src', name: 'src', type: 'directory' },
    ]);
    const deep = await run(t, 'list', { path: 'src', recursive: true, includeDirs: false });
    expect(deep.entries).toEqual([{ path: 'src/lib/a.ts', name: 'a.ts', type: 'file', size: 3 }]);
  });

  test('stops at config.maxListEntries with truncated', async () => {
    const t = setup({ maxListEntries: 3 });
    for (let i = 0; i < 5; i += 1) writeFileSync(join(t.workdir, `f${i}.txt`), '');
    expect(await run(t, 'list', {})).toMatchObject({ count: 3, truncated: true });
  });

  test('listing a file is E_FS_NOT_A_DIRECTORY; a missing directory is E_FS_NOT_FOUND', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'a.txt'), '');
    expect((await toolError(call(t, 'list', { path: 'a.txt' }))).code).toBe('E_FS_NOT_A_DIRECTORY');
    expect((await toolError(call(t, 'list', { path: 'nope' }))).code).toBe('E_FS_NOT_FOUND');
  });

  test('mkdir creates parents by default and accepts an existing directory', async () => {
    const t = setup();
    expect(await run(t, 'mkdir', { path: 'a/b/c' })).toEqual({ path: 'a/b/c', created: true });
    expect(statSync(join(t.workdir, 'a/b/c')).isDirectory()).toBe(true);
    expect(await run(t, 'mkdir', { path: 'a/b/c' })).toEqual({ path: 'a/b/c', created: false });
  });

  test('mkdir without recursive needs the parent and refuses an existing path', async () => {
    const t = setup();
    expect((await toolError(call(t, 'mkdir', { path: 'x/y', recursive: false }))).code).toBe('E_FS_NOT_FOUND');
    mkdirSync(join(t.workdir, 'x'));
    expect((await toolError(call(t, 'mkdir', { path: 'x', recursive: false }))).code).toBe('E_FS_EXISTS');
    writeFileSync(join(t.workdir, 'f'), '');
    expect((await toolError(call(t, 'mkdir', { path: 'f' }))).code).toBe('E_FS_NOT_A_DIRECTORY');
  });
});

describe('file-system rejects bad arguments with E_TOOL_INVALID_ARGS', () => {
  test.each([
    ['read', { path: 7 }],
    ['read', { path: 'a', maxBytes: 0 }],
    ['read', { path: 'a', offset: -1 }],
    ['write', { path: 'a' }],
    ['write', { path: 'a', content: { text: 'x' } }],
    ['edit', { path: 'a', oldText: 'x' }],
    ['list', { recursive: 'yes' }],
    ['glob', { pattern: ['*.ts'] }],
    ['grep', { pattern: 'x', maxResults: 0 }],
    ['mkdir', null],
  ])('%s %j', async (name, input) => {
    const t = setup();
    expect((await toolError(call(t, name, input))).code).toBe('E_TOOL_INVALID_ARGS');
  });
});
