import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { handlers } from '../../bundles/base/tools/file-system/index.ts';
import { asObject, callTool, createToolContext, toolError, type TestConfig, type TestToolContext } from './tool-context.ts';

let current: TestToolContext | undefined;
function setup(files: Record<string, string | Uint8Array> = {}, config: TestConfig = {}): TestToolContext {
  current = createToolContext({ config });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(current.workdir, path)), { recursive: true });
    writeFileSync(join(current.workdir, path), content);
  }
  return current;
}
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

const run = async (t: TestToolContext, name: string, input: unknown) => asObject(await callTool(handlers, name, t.ctx, input));

const project = {
  'src/index.ts': 'export const answer = 42;\n',
  'src/lib/util.ts': 'export function add(a: number, b: number) {\n  return a + b; // TODO: overflow\n}\n',
  'src/lib/readme.md': '# TODO list\n',
  'docs/guide.md': 'Nothing to do here.\n',
  '.github/workflow.yml': 'on: push # TODO\n',
  'node_modules/dep/index.ts': 'export const TODO = 1;\n',
  '.git/config': '[core] TODO\n',
  'assets/logo.bin': new Uint8Array([0, 1, 2, 84, 79, 68, 79]),
};

describe('file-system__glob', () => {
  test('"**" matches at any depth; results are workspace-relative and sorted', async () => {
    const t = setup(project);
    expect((await run(t, 'glob', { pattern: '**/*.ts' })).files).toEqual(['src/index.ts', 'src/lib/util.ts']);
  });

  test('pattern relative to path; brace alternatives; dot directories match', async () => {
    const t = setup(project);
    expect((await run(t, 'glob', { pattern: '*.{ts,md}', path: 'src/lib' })).files).toEqual(['src/lib/readme.md', 'src/lib/util.ts']);
    expect((await run(t, 'glob', { pattern: '.github/*.yml' })).files).toEqual(['.github/workflow.yml']);
  });

  test('skips node_modules and .git unless the pattern names them', async () => {
    const t = setup(project);
    const all = await run(t, 'glob', { pattern: '**/*' });
    expect(JSON.stringify(all.files)).not.toContain('node_modules');
    expect(JSON.stringify(all.files)).not.toContain('.git/');
    expect((await run(t, 'glob', { pattern: 'node_modules/**/*.ts' })).files).toEqual(['node_modules/dep/index.ts']);
  });

  test('maxResults caps the list with truncated', async () => {
    const t = setup(project);
    expect(await run(t, 'glob', { pattern: '**/*', maxResults: 2 })).toMatchObject({ count: 2, truncated: true });
  });

  test('a missing base directory is E_FS_NOT_FOUND', async () => {
    const t = setup(project);
    expect((await toolError(callTool(handlers, 'glob', t.ctx, { pattern: '*', path: 'nope' }))).code).toBe('E_FS_NOT_FOUND');
  });
});

describe('file-system__grep', () => {
  test('returns {file, line, text} for each matching line, skipping binary files, .git and node_modules', async () => {
    const t = setup(project);
    const out = await run(t, 'grep', { pattern: 'TODO' });
    expect(out.matches).toEqual([
      { file: '.github/workflow.yml', line: 1, text: 'on: push # TODO' },
      { file: 'src/lib/readme.md', line: 1, text: '# TODO list' },
      { file: 'src/lib/util.ts', line: 2, text: '  return a + b; // TODO: overflow' },
    ]);
    expect(out.skipped).toEqual({ binary: 1, tooLarge: 0 });
  });

  test('include filters by glob (basename for a bare pattern); ignoreCase; a single file as path', async () => {
    const t = setup(project);
    expect((await run(t, 'grep', { pattern: 'todo', include: '*.ts', ignoreCase: true })).matches).toEqual([{ file: 'src/lib/util.ts', line: 2, text: '  return a + b; // TODO: overflow' }]);
    expect((await run(t, 'grep', { pattern: 'TODO', include: 'src/**/*.md' })).count).toBe(1);
    expect((await run(t, 'grep', { pattern: 'answer', path: 'src/index.ts' })).matches).toEqual([{ file: 'src/index.ts', line: 1, text: 'export const answer = 42;' }]);
  });

  test('regular expressions are JavaScript-like (RE2) syntax, named groups included', async () => {
    const t = setup(project);
    expect((await run(t, 'grep', { pattern: '(?<n>answer) =', include: '*.ts' })).count).toBe(1);
  });

  test('regular expressions are JavaScript syntax', async () => {
    const t = setup(project);
    const out = await run(t, 'grep', { pattern: '\\b\\d{2}\\b', include: '*.ts' });
    expect(out.matches).toEqual([{ file: 'src/index.ts', line: 1, text: 'export const answer = 42;' }]);
  });

  test('an invalid regular expression is E_FS_BAD_PATTERN', async () => {
    const t = setup(project);
    const error = await toolError(callTool(handlers, 'grep', t.ctx, { pattern: 'foo(' }));
    expect(error.code).toBe('E_FS_BAD_PATTERN');
    expect(error.suggestion).toContain('escape');
  });

  test('backreferences and lookaround are refused with E_FS_BAD_PATTERN naming the RE2 restriction', async () => {
    const t = setup(project);
    for (const pattern of ['(a)\\1', '(?<x>a)\\k<x>', 'foo(?=bar)', 'foo(?!bar)', '(?<=a)b', '(?<!a)b']) {
      const error = await toolError(callTool(handlers, 'grep', t.ctx, { pattern }));
      expect(error.code).toBe('E_FS_BAD_PATTERN');
      expect(error.message).toContain('RE2 syntax');
      expect(error.suggestion).toContain('without backreferences or lookaround');
    }
  });

  // Issue 9: `(a+)+$` blocked an agent for 113 s with a backtracking RegExp; RE2 is linear in the input.
  // A backtracking engine does not return from this within the test timeout (nor within minutes).
  test('a catastrophic-backtracking pattern against a long line finishes', async () => {
    const t = setup({ 'long.txt': `${'a'.repeat(200_000)}b\n`, 'short.txt': 'aaa\n' });
    const out = await run(t, 'grep', { pattern: '(a+)+$' });
    expect(out.matches).toEqual([{ file: 'short.txt', line: 1, text: 'aaa' }]);
    expect(out.filesSearched).toBe(2);
  }, 20_000);

  test('maxResults caps matches with truncated', async () => {
    const t = setup({ 'many.txt': 'hit\n'.repeat(50) });
    expect(await run(t, 'grep', { pattern: 'hit', maxResults: 10 })).toMatchObject({ count: 10, truncated: true });
  });

  test('files over maxGrepFileBytes are skipped and counted', async () => {
    const t = setup({ 'big.txt': `needle ${'x'.repeat(200)}`, 'small.txt': 'needle' }, { maxGrepFileBytes: 100 });
    const out = await run(t, 'grep', { pattern: 'needle' });
    expect(out.matches).toEqual([{ file: 'small.txt', line: 1, text: 'needle' }]);
    expect(out.skipped).toEqual({ binary: 0, tooLarge: 1 });
  });

  test('very long lines are clipped around the match', async () => {
    const t = setup({ 'min.js': `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}` });
    const { matches } = await run(t, 'grep', { pattern: 'NEEDLE' });
    const text = Array.isArray(matches) ? String(asObject(matches[0] ?? null).text) : '';
    expect(text).toContain('NEEDLE');
    expect(text.length).toBeLessThan(500);
  });
});
