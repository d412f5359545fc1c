/** Bundles that must validate cleanly: all eight Kinds, the upstream style, the built-in package, the demos. */
import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BASE_PACKAGE_DIR, loadBundle } from '../../shared/config/index.ts';
import { RESOURCE_KINDS } from '../../shared/types/resources.ts';
import { FIXTURES_DIR } from './fixture-expectations.ts';

describe('valid bundles', () => {
  test('a bundle using all eight Kinds has no errors and no warnings of its own', async () => {
    const dir = join(FIXTURES_DIR, 'all-kinds');
    const bundle = await loadBundle(dir, { env: { FIXTURE_TICKER_TOKEN: 'x' } });
    expect(bundle.errors).toEqual([]);
    expect(bundle.warnings.filter((w) => w.file.startsWith(dir))).toEqual([]);
    const kinds = new Set(bundle.resources.filter((r) => r.packageName === '@fixtures/all-kinds').map((r) => r.kind));
    expect([...kinds].sort()).toEqual([...RESOURCE_KINDS].sort());
  });

  test('an upstream-style bundle (package refs, valueFrom.env, systemRef prompts, several files) validates', async () => {
    const dir = join(FIXTURES_DIR, 'upstream-style');
    const bundle = await loadBundle(dir, { env: { ANTHROPIC_API_KEY: 'k', GOONDAN_SECRET_WEBHOOK_SIGNING_SECRET: 's' } });
    expect(bundle.errors).toEqual([]);
    expect(bundle.warnings.filter((w) => w.file.startsWith(dir))).toEqual([]);
    expect(bundle.packageName).toBe('telegram-coordinator');
  });

  test('without its keys the upstream-style bundle is still valid, with one warning per missing variable', async () => {
    const dir = join(FIXTURES_DIR, 'upstream-style');
    const bundle = await loadBundle(dir, { env: {} });
    expect(bundle.errors).toEqual([]);
    expect(bundle.warnings.filter((w) => w.code === 'E_CONFIG_ENV_MISSING').map((w) => w.message.split(' ')[2])).toEqual([
      'ANTHROPIC_API_KEY',
      'GOONDAN_SECRET_WEBHOOK_SIGNING_SECRET',
    ]);
  });

  test('the built-in package @goondan/base validates with zero errors (missing entry modules are warnings)', async () => {
    const bundle = await loadBundle(BASE_PACKAGE_DIR, { env: {} });
    expect(bundle.errors).toEqual([]);
    expect(bundle.packageName).toBe('@goondan/base');
    expect(bundle.warnings.filter((w) => w.code !== 'E_CONFIG_ENTRY_NOT_FOUND')).toEqual([]);
    const names = (kind: string) => bundle.resources.filter((r) => r.kind === kind).map((r) => r.name).sort();
    expect(names('Tool')).toEqual(['agents', 'bash', 'file-system', 'http-fetch', 'json-query', 'self-restart', 'slack', 'telegram', 'text-transform', 'wait']);
    expect(names('Connector')).toEqual(['cli', 'discord', 'github', 'slack', 'telegram', 'telegram-polling', 'webhook']);
    expect(names('Extension')).toEqual(
      expect.arrayContaining(['context-message', 'inter-agent-response-format', 'logging', 'message-compaction', 'message-window', 'required-tools-guard', 'tool-search']),
    );
  });

  test('every bundle shipped under bundles/ (their entry modules included) validates with zero errors', async () => {
    const bundlesDir = dirname(BASE_PACKAGE_DIR);
    const names = readdirSync(bundlesDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['base', 'coder', 'demo']));
    for (const name of names) {
      const bundle = await loadBundle(join(bundlesDir, name), { env: {} });
      expect({ name, errors: bundle.errors }).toEqual({ name, errors: [] });
    }
  });

  test('a user bundle reports built-in missing entries only for the built-ins it uses', async () => {
    const bundle = await loadBundle(join(FIXTURES_DIR, 'all-kinds'), { env: { FIXTURE_TICKER_TOKEN: 'x' } });
    const baseWarnings = bundle.warnings.filter((w) => w.file.startsWith(BASE_PACKAGE_DIR));
    const used = ['tools/wait/', 'extensions/message-window/', 'extensions/context-message/', 'extensions/required-tools-guard/'];
    expect(baseWarnings.filter((w) => !used.some((u) => w.file.includes(u)))).toEqual([]);
  });
});
