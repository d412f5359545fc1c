/**
 * A template's files as they will be written into DIR: dotfiles renamed (npm drops `.gitignore`
 * from published packages, so templates store `gitignore`) and placeholders filled in:
 * `@@NAME@@` (the bundle's name, from DIR), `@@SCHEMA@@` (the editor schema, relative to each
 * file) and `@@BUNDLE_DIR@@` (DIR as an absolute path, escaped for a YAML double-quoted string).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { TEMPLATES_DIR } from './template-catalog.ts';

export const PUBLISHED_SCHEMA = join(TEMPLATES_DIR, '..', 'schemas', 'goondan.schema.json');

/** Stored name → written name (top-level files only). */
const DOTFILES: Readonly<Record<string, string>> = { gitignore: '.gitignore', 'env.example': '.env.example' };

export interface RenderedFile {
  /** Path relative to DIR, with `/` separators. */
  path: string;
  content: string;
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]))
    .sort();
}

/** A resource name (lowercase letters, digits, "-", a letter first, ≤ 63) made from DIR's name. */
export function bundleNameFor(targetDir: string): string {
  const slug = basename(resolve(targetDir))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug === '' ? 'my-swarm' : slug;
}

export function renderTemplate(templateName: string, targetDir: string): RenderedFile[] {
  const source = join(TEMPLATES_DIR, templateName);
  const target = resolve(targetDir);
  const name = bundleNameFor(target);
  return listFiles(source).map((stored) => {
    const path = DOTFILES[stored] ?? stored;
    const fileDir = dirname(join(target, path));
    const schema = relative(fileDir, PUBLISHED_SCHEMA).split('\\').join('/');
    const content = readFileSync(join(source, stored), 'utf8')
      .replaceAll('@@NAME@@', name)
      .replaceAll('@@SCHEMA@@', schema)
      .replaceAll('@@BUNDLE_DIR@@', JSON.stringify(target).slice(1, -1));
    return { path, content };
  });
}
