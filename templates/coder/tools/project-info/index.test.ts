/** `bun test`: the handler called directly, as goondan calls it, on a throw-away workspace. */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handlers } from './index.ts';

let workdir = '';
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

describe('project-info__summary', () => {
  test('counts the files of the workspace and their bytes, sub-directories included', async () => {
    workdir = mkdtempSync(join(tmpdir(), 'project-info-'));
    writeFileSync(join(workdir, 'a.txt'), 'hello');
    mkdirSync(join(workdir, 'src'));
    writeFileSync(join(workdir, 'src', 'b.ts'), 'export {};\n');
    expect(await handlers.summary({ workdir })).toEqual({ files: 2, bytes: 16 });
  });

  test('skips .git and node_modules', async () => {
    workdir = mkdtempSync(join(tmpdir(), 'project-info-'));
    mkdirSync(join(workdir, 'node_modules'));
    writeFileSync(join(workdir, 'node_modules', 'x.js'), 'x');
    expect(await handlers.summary({ workdir })).toEqual({ files: 0, bytes: 0 });
  });
});
