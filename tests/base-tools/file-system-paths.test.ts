import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handlers } from '../../bundles/base/tools/file-system/index.ts';
import { asObject, callTool, toolError, type TestToolContext, toolContexts } from './tool-context.ts';

const setup = toolContexts();

const call = (t: TestToolContext, name: string, input: unknown) => callTool(handlers, name, t.ctx, input);

describe('file-system paths resolve against ctx.workdir', () => {
  test('relative paths land in the workspace and results are workspace-relative', async () => {
    const t = setup();
    const out = asObject(await call(t, 'write', { path: 'notes/today.md', content: 'hi' }));
    expect(out.path).toBe('notes/today.md');
    expect(readFileSync(join(t.workdir, 'notes/today.md'), 'utf8')).toBe('hi');
  });

  test('an absolute path inside the workspace is accepted and reported relative', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'a.txt'), 'x');
    expect(asObject(await call(t, 'read', { path: join(t.workdir, 'a.txt') })).path).toBe('a.txt');
  });

  test('".." that stays inside the workspace is fine', async () => {
    const t = setup();
    mkdirSync(join(t.workdir, 'src'));
    writeFileSync(join(t.workdir, 'a.txt'), 'x');
    expect(asObject(await call(t, 'read', { path: 'src/../a.txt' })).content).toBe('x');
  });

  test('a symlink that points to another place inside the workspace is fine', async () => {
    const t = setup();
    writeFileSync(join(t.workdir, 'real.txt'), 'inside');
    symlinkSync(join(t.workdir, 'real.txt'), join(t.workdir, 'alias.txt'));
    expect(asObject(await call(t, 'read', { path: 'alias.txt' })).content).toBe('inside');
  });
});

describe('file-system refuses paths that escape the workspace (E_FS_OUTSIDE_WORKDIR)', () => {
  test('".." out of the workspace, for every operation', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), 'secret');
    const attempts: Array<[string, object]> = [
      ['read', { path: '../outside/secret.txt' }],
      ['write', { path: '../outside/new.txt', content: 'x' }],
      ['edit', { path: '../outside/secret.txt', oldText: 'secret', newText: 'owned' }],
      ['list', { path: '..' }],
      ['mkdir', { path: '../outside/dir' }],
      ['glob', { pattern: '*.txt', path: '../outside' }],
      ['grep', { pattern: 'secret', path: '../outside' }],
    ];
    for (const [name, input] of attempts) {
      const error = await toolError(call(t, name, input));
      expect(error.code).toBe('E_FS_OUTSIDE_WORKDIR');
      expect(error.message).toContain('outside the workspace');
      expect(error.suggestion).toContain('roots');
    }
    expect(readFileSync(join(t.outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(join(t.outside, 'new.txt'))).toBe(false);
    expect(existsSync(join(t.outside, 'dir'))).toBe(false);
  });

  test('absolute paths outside the workspace', async () => {
    const t = setup();
    for (const path of ['/etc/passwd', t.outside, '/']) {
      expect((await toolError(call(t, 'read', { path }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    }
  });

  test('a symlinked directory inside the workspace that points outside', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), 'secret');
    symlinkSync(t.outside, join(t.workdir, 'link'));
    const read = await toolError(call(t, 'read', { path: 'link/secret.txt' }));
    expect(read.code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect(read.message).toContain('symbolic link');
    expect((await toolError(call(t, 'write', { path: 'link/planted.txt', content: 'x' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect((await toolError(call(t, 'list', { path: 'link' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect(existsSync(join(t.outside, 'planted.txt'))).toBe(false);
  });

  test('a symlinked file that points outside', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), 'secret');
    symlinkSync(join(t.outside, 'secret.txt'), join(t.workdir, 'innocent.txt'));
    expect((await toolError(call(t, 'read', { path: 'innocent.txt' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect((await toolError(call(t, 'write', { path: 'innocent.txt', content: 'owned' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect(readFileSync(join(t.outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  test('a dangling symlink whose target is outside (write would create the target)', async () => {
    const t = setup();
    symlinkSync(join(t.outside, 'not-yet.txt'), join(t.workdir, 'dangling.txt'));
    expect((await toolError(call(t, 'write', { path: 'dangling.txt', content: 'x' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    expect(existsSync(join(t.outside, 'not-yet.txt'))).toBe(false);
  });

  test('a chain of links that ends outside', async () => {
    const t = setup();
    symlinkSync(t.outside, join(t.workdir, 'hop2'));
    symlinkSync(join(t.workdir, 'hop2'), join(t.workdir, 'hop1'));
    expect((await toolError(call(t, 'write', { path: 'hop1/x.txt', content: 'x' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
  });

  test('glob and grep neither follow nor report through links that lead outside', async () => {
    const t = setup();
    writeFileSync(join(t.outside, 'secret.txt'), 'needle');
    symlinkSync(t.outside, join(t.workdir, 'link'));
    symlinkSync(join(t.outside, 'secret.txt'), join(t.workdir, 'file-link.txt'));
    const grep = asObject(await call(t, 'grep', { pattern: 'needle' }));
    expect(grep.matches).toEqual([]);
    const glob = asObject(await call(t, 'glob', { pattern: '**/secret.txt' }));
    expect(glob.files).toEqual([]);
  });

  test('glob patterns may not climb out with ".." or be absolute', async () => {
    const t = setup();
    for (const pattern of ['../outside/*', '/etc/*', 'a/../../x']) {
      expect((await toolError(call(t, 'glob', { pattern }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
    }
  });
});

describe('config.roots and allowOutsideWorkdir widen the allowed area', () => {
  test('roots allows exactly the listed directories', async () => {
    const t = setup(({ outside }) => ({ roots: [outside] }));
    writeFileSync(join(t.outside, 'shared.txt'), 'shared');
    const out = asObject(await call(t, 'read', { path: join(t.outside, 'shared.txt') }));
    expect(out.content).toBe('shared');
    expect(out.path).toBe(join(t.outside, 'shared.txt'));
    expect((await toolError(call(t, 'read', { path: '/etc/hostname' }))).code).toBe('E_FS_OUTSIDE_WORKDIR');
  });

  test('a symlink into an allowed root is fine', async () => {
    const t = setup(({ outside }) => ({ roots: [outside] }));
    writeFileSync(join(t.outside, 'shared.txt'), 'shared');
    symlinkSync(t.outside, join(t.workdir, 'shared'));
    expect(asObject(await call(t, 'read', { path: 'shared/shared.txt' })).content).toBe('shared');
  });

  test('allowOutsideWorkdir switches the check off', async () => {
    const t = setup({ allowOutsideWorkdir: true });
    writeFileSync(join(t.outside, 'x.txt'), 'free');
    expect(asObject(await call(t, 'read', { path: '../outside/x.txt' })).content).toBe('free');
  });

  test('relative roots are a config error', async () => {
    const t = setup({ roots: ['relative'] });
    expect((await toolError(call(t, 'read', { path: 'a' }))).code).toBe('E_TOOL_CONFIG');
  });
});
