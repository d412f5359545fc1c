/**
 * Environment for plans (SPEC.md §1.1): `--env-file` > `.env.local` > `.env` > OS env. A small
 * dotenv parser: `KEY=value`, `export KEY=value`, `#` comments, single quotes (literal), double
 * quotes (escapes \n \t \" \\, may span lines), unquoted values with trailing ` # comment` cut.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from './config-error.ts';

// One entry per match: KEY, then a double-quoted (may span lines), single-quoted or bare value.
const ENTRY = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*(?:"((?:\\[\s\S]|[^"\\])*)"|'([^']*)'|([^\n]*))[^\n]*$/gm;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of text.replace(/\r\n?/g, '\n').matchAll(ENTRY)) {
    const [, key, doubleQuoted, singleQuoted, bare] = match;
    if (key === undefined) continue;
    if (doubleQuoted !== undefined) out[key] = doubleQuoted.replace(/\\([\s\S])/g, (_, c: string) => ESCAPES[c] ?? `\\${c}`);
    else if (singleQuoted !== undefined) out[key] = singleQuoted;
    else out[key] = (bare ?? '').replace(/(^|\s+)#.*$/, '').trim();
  }
  return out;
}

export interface LoadEnvOptions {
  /** Directory holding `.env` / `.env.local` (the bundle root). */
  bundleDir: string;
  /** `--env-file`: wins over everything; must exist. */
  envFile?: string;
  processEnv?: Record<string, string | undefined>;
}

function readEnvFile(path: string): Record<string, string> {
  return existsSync(path) ? parseDotenv(readFileSync(path, 'utf8')) : {};
}

export function loadEnv(options: LoadEnvOptions): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.processEnv ?? process.env)) if (value !== undefined) merged[key] = value;
  Object.assign(merged, readEnvFile(join(options.bundleDir, '.env')), readEnvFile(join(options.bundleDir, '.env.local')));
  if (options.envFile !== undefined) {
    const path = resolve(options.envFile);
    if (!existsSync(path)) {
      throw new ConfigError([
        { code: 'E_CONFIG_ENV_FILE_NOT_FOUND', message: `env file not found: ${path}`, file: path, line: 1, column: 1, path: '', suggestion: 'check the --env-file path' },
      ]);
    }
    Object.assign(merged, readEnvFile(path));
  }
  return merged;
}
