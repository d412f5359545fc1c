/** The build caches' fingerprint of their sources (orchestrator/process/source-fingerprint.ts). */
import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sourceFingerprint } from '../../orchestrator/process/source-fingerprint.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-fingerprint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('changes with any source’s size or mtime, a new source, a stamped file or a setting; not with other files', () => {
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'src', 'deep', 'a.ts'), 'export const a = 1;');
  writeFileSync(join(dir, 'lock.json'), '{}');
  const of = (settings = ['1']) => sourceFingerprint({ dirs: [join(dir, 'src')], files: [join(dir, 'lock.json')], settings });
  const first = of();
  expect(of()).toBe(first);
  writeFileSync(join(dir, 'src', 'notes.md'), 'not a source');
  expect(of()).toBe(first);
  utimesSync(join(dir, 'src', 'deep', 'a.ts'), new Date(), new Date(Date.now() + 5_000));
  const touched = of();
  expect(touched).not.toBe(first);
  writeFileSync(join(dir, 'src', 'b.ts'), '');
  const added = of();
  expect(added).not.toBe(touched);
  writeFileSync(join(dir, 'lock.json'), '{"changed":true}');
  const locked = of();
  expect(locked).not.toBe(added);
  expect(of(['2'])).not.toBe(locked);
});
