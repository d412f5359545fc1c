/**
 * The workspace sandbox of the file tools holds against the attacks of issue 9: glob patterns that
 * climb out, hard links made to files outside, and symbolic links swapped between the check and
 * the open by a second process running in a tight loop.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handlers } from '../../bundles/base/tools/file-system/index.ts';
import type { JsonValue } from '../../shared/types/index.ts';
import { asObject, callTool, toolError, type TestToolContext, toolContexts } from './tool-context.ts';

const setup = toolContexts();
const call = (t: TestToolContext, name: string, input: unknown) => callTool(handlers, name, t.ctx, input);
const SECRET = 'OUTSIDE-SECRET';

describe('glob, grep and list never leave the workspace', () => {
  test.each(['../../**', '../**', '**/../..', '**/../../**', './../**', '*/../../*', '{..,x}/**', '{x,../..}/**', '/etc/**', '/**', '~/**'])('the pattern %s is refused', async (pattern) => {
    const t = setup();
    const error = await toolError(call(t, 'glob', { pattern }));
    expect(error.code).toBe('E_FS_OUTSIDE_WORKDIR');
  });

  test('whatever the pattern, every listed file lies inside the searched directory', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), SECRET);
    mkdirSync(join(t.workdir, 'src'));
    writeFileSync(join(t.workdir, 'src', 'a.txt'), 'a');
    for (const pattern of ['**', '**/*', '*', '[.][.]/**', '.?/**', '**/secret.txt', '{a,b,c}/**', 'src/**/..*']) {
      const out = asObject(await call(t, 'glob', { pattern }));
      const files = Array.isArray(out.files) ? out.files.map(String) : [];
      expect({ pattern, outside: files.filter((file) => file.startsWith('/') || file.startsWith('..') || file.includes('secret')) }).toEqual({ pattern, outside: [] });
    }
  });

  test('grep include patterns are held to the same rule', async () => {
    const t = setup();
    expect((await toolError(call(t, 'grep', { pattern: 'x', include: '../**' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect((await toolError(call(t, 'grep', { pattern: 'x', include: '{..,x}/**' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
  });
});

describe('hard links to files outside are refused (E_FS_HARDLINK)', () => {
  function linked(): TestToolContext {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), SECRET);
    linkSync(join(t.outside, 'secret.txt'), join(t.workdir, 'innocent.txt'));
    return t;
  }

  test('read and edit refuse a file with more than one link, saying why and what to do', async () => {
    const t = linked();
    const read = await toolError(call(t, 'read', { path: 'innocent.txt' }));
    expect(read.code).toBe('E_FS_HARDLINK');
    expect(read.message).toContain('2 hard links');
    expect(read.suggestion).toContain('copy');
    expect(JSON.stringify(read)).not.toContain(SECRET);
    expect((await toolError(call(t, 'edit', { path: 'innocent.txt', oldText: 'OUTSIDE', newText: 'OWNED' }))).code).toBe('E_FS_HARDLINK');
    expect(readFileSync(join(t.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  test('write and append refuse it and the outside file is untouched (not even truncated)', async () => {
    const t = linked();
    expect((await toolError(call(t, 'write', { path: 'innocent.txt', content: 'owned' }))).code).toBe('E_FS_HARDLINK');
    expect((await toolError(call(t, 'write', { path: 'innocent.txt', content: 'owned', append: true }))).code).toBe('E_FS_HARDLINK');
    expect(readFileSync(join(t.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  test('grep skips it and says so; grep on it directly is refused', async () => {
    const t = linked();
    writeFileSync(join(t.workdir, 'plain.txt'), 'OUTSIDE-but-mine');
    const out = asObject(await call(t, 'grep', { pattern: 'OUTSIDE' }));
    expect(out.matches).toEqual([{ file: 'plain.txt', line: 1, text: 'OUTSIDE-but-mine' }]);
    expect(out.skipped).toEqual({ binary: 0, tooLarge: 0, hardLinked: 1 });
    expect(String(out.note)).toContain('hard link');
    expect((await toolError(call(t, 'grep', { pattern: 'x', path: 'innocent.txt' }))).code).toBe('E_FS_HARDLINK');
  });

  test('allowOutsideWorkdir (a trusted agent) lifts the refusal', async () => {
    const t = setup({ allowOutsideWorkdir: true });
    writeFileSync(join(t.outside, 'secret.txt'), 'shared');
    linkSync(join(t.outside, 'secret.txt'), join(t.workdir, 'linked.txt'));
    expect(asObject(await call(t, 'read', { path: 'linked.txt' })).content).toBe('shared');
  });
});

/**
 * A second process swaps links in a tight loop while the tool works. Runs until `stop` exists
 * (bounded by its own deadline) and prints how many swaps it made.
 */
const SWAPPER = `
const { existsSync, renameSync, symlinkSync, unlinkSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const [mode, workdir, outside, stop] = process.argv.slice(2);
const deadline = Date.now() + 120000;
let swaps = 0;
let asides = 0;
writeFileSync(join(workdir, '..', 'swapper-ready'), '');
while (!existsSync(stop) && Date.now() < deadline) {
  if (mode === 'final-link') {
    // "link" always exists: atomically replaced by a link outside, then by a link inside.
    symlinkSync(join(outside, 'secret.txt'), join(workdir, 'tmp-link'));
    renameSync(join(workdir, 'tmp-link'), join(workdir, 'link'));
    symlinkSync(join(workdir, 'inside.txt'), join(workdir, 'tmp-link'));
    renameSync(join(workdir, 'tmp-link'), join(workdir, 'link'));
    swaps++;
  } else {
    // "dir" is a real directory inside, then a link to the outside directory, then real again.
    // The tool may create "dir" itself (write makes parents) while it is missing: moved aside.
    const dir = join(workdir, 'dir');
    const real = join(workdir, 'dir.real');
    try { renameSync(dir, real); } catch { continue; }
    try { symlinkSync(outside, dir); swaps++; } catch {}
    try { unlinkSync(dir); } catch {}
    for (;;) {
      try { renameSync(real, dir); break; } catch {}
      try { renameSync(dir, join(workdir, 'aside-' + ++asides)); } catch {}
    }
  }
}
console.log(swaps);
`;

async function withSwapper(t: TestToolContext, mode: 'final-link' | 'middle-dir', work: () => Promise<void>): Promise<number> {
  const script = join(t.workdir, '..', 'swapper.cjs');
  const stop = join(t.workdir, '..', 'swapper-stop');
  writeFileSync(script, SWAPPER);
  const proc = Bun.spawn([process.execPath, script, mode, t.workdir, t.outside, stop], { stdout: 'pipe', stderr: 'pipe' });
  try {
    const ready = join(t.workdir, '..', 'swapper-ready');
    const deadline = Date.now() + 20_000;
    while (!existsSync(ready)) {
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`the swapper process did not start within 20 s (exit ${proc.exitCode}): ${await new Response(proc.stderr).text()}`);
      await Bun.sleep(10);
    }
    await work();
  } finally {
    writeFileSync(stop, '');
  }
  const [out, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  expect({ exitCode, stderr: exitCode === 0 ? '' : await new Response(proc.stderr).text() }).toEqual({ exitCode: 0, stderr: '' });
  return Number(out.trim());
}

/** Runs a tool call and returns its output, or the error code it failed with. */
async function outcome(t: TestToolContext, name: string, input: unknown): Promise<JsonValue> {
  try {
    return await call(t, name, input);
  } catch (error) {
    return { error: typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error) };
  }
}

const ATTEMPTS = 300;
// Link swaps are slow on this kind of file system (~0.5 ms); more reads make a check-then-open race show.
const FINAL_LINK_ATTEMPTS = 1000;

describe('a link swapped between check and open cannot escape (open-then-verify)', () => {
  test('the last path component swapped between an inside and an outside target: 0 escapes in 1000 reads', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), SECRET);
    writeFileSync(join(t.workdir, 'inside.txt'), 'inside');
    symlinkSync(join(t.workdir, 'inside.txt'), join(t.workdir, 'link'));
    const results: string[] = [];
    const swaps = await withSwapper(t, 'final-link', async () => {
      for (let i = 0; i < FINAL_LINK_ATTEMPTS; i++) results.push(JSON.stringify(await outcome(t, 'read', { path: 'link' })));
    });
    expect(swaps).toBeGreaterThan(0);
    expect(results.filter((r) => r.includes(SECRET))).toEqual([]);
    expect(results).toHaveLength(FINAL_LINK_ATTEMPTS);
  }, 120_000);

  test('a parent directory swapped for a link outside: 0 escapes in 300 reads, writes and listings', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), SECRET);
    writeFileSync(join(t.outside, 'only-outside.txt'), SECRET);
    mkdirSync(join(t.workdir, 'dir'));
    writeFileSync(join(t.workdir, 'dir', 'secret.txt'), 'inside');
    const results: string[] = [];
    const swaps = await withSwapper(t, 'middle-dir', async () => {
      for (let i = 0; i < ATTEMPTS; i++) {
        results.push(JSON.stringify(await outcome(t, 'read', { path: 'dir/secret.txt' })));
        results.push(JSON.stringify(await outcome(t, 'write', { path: 'dir/planted.txt', content: 'planted' })));
        results.push(JSON.stringify(await outcome(t, 'list', { recursive: true })));
        results.push(JSON.stringify(await outcome(t, 'grep', { pattern: 'SECRET' })));
      }
    });
    expect(swaps).toBeGreaterThan(0);
    expect(results.filter((r) => r.includes(SECRET) || r.includes('only-outside'))).toEqual([]);
    expect(readdirSync(t.outside).sort()).toEqual(['only-outside.txt', 'secret.txt']);
    expect(readFileSync(join(t.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(statSync(join(t.outside, 'secret.txt')).nlink).toBe(1);
  }, 120_000);
});
