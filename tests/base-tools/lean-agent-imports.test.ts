/**
 * Built-in tool and extension modules load into every agent process that uses them (issue 12: lean
 * agent processes): none may import node:crypto, whose module adds ~3.5 MB to the process
 * (bench/agent-rss.ts) — Bun.CryptoHasher and the global Web Crypto do the same without it.
 * Connectors run in their own processes and may.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const BASE = join(import.meta.dir, '../../bundles/base');

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
    .map((path) => join(dir, path));
}

describe('agent-side built-in modules', () => {
  test('import no node:crypto', () => {
    const files = [...sources(join(BASE, 'tools')), ...sources(join(BASE, 'extensions'))];
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.filter((file) => /from\s+['"](node:)?crypto['"]|require\(\s*['"](node:)?crypto['"]\s*\)/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
