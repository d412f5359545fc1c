/** Discovery, limits and the all-problems-in-one-run rule (SPEC.md §1.3). */
import { afterEach, describe, expect, test } from 'bun:test';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_PACKAGE_DIR, BundleNotFoundError, loadBundle } from '../../shared/config/index.ts';
import { MOCK_MODEL, SWARM_OF_A, type TempBundle, tempBundle } from './temp-bundle.ts';

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

async function notFound(path: string): Promise<BundleNotFoundError> {
  try {
    await loadBundle(path);
  } catch (error) {
    if (BundleNotFoundError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected BundleNotFoundError for ${path}`);
}

describe('nothing to load is a distinguishable error', () => {
  test('a missing path throws BundleNotFoundError with code E_CONFIG_NOT_FOUND', async () => {
    const error = await notFound('/definitely/not/here');
    expect(error.code).toBe('E_CONFIG_NOT_FOUND');
    expect(error.message).toContain('/definitely/not/here');
  });

  test('a directory without resource files throws it too', async () => {
    bundle = tempBundle({ 'notes.yaml': 'a: 1\n', 'README.md': '# hi\n' });
    expect((await notFound(bundle.dir)).code).toBe('E_CONFIG_NOT_FOUND');
  });

  test('a file that is not YAML throws it too', async () => {
    bundle = tempBundle({ 'goondan.json': '{}' });
    expect((await notFound(join(bundle.dir, 'goondan.json'))).message).toContain('not a YAML file');
  });
});

describe('discovery', () => {
  test('finds resource files recursively by base name and skips dist, node_modules and dot-dirs', async () => {
    bundle = tempBundle({
      'goondan.yaml': `${MOCK_MODEL}---\n${SWARM_OF_A}`,
      'nested/deeper/agents.yml': 'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec: { modelConfig: { modelRef: Model/m } }\n',
      'dist/tools.yaml': 'broken: [',
      'node_modules/x/goondan.yaml': 'broken: [',
      '.hidden/models.yaml': 'broken: [',
      'other.yaml': 'broken: [',
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
    const userFiles = loaded.files.filter((f) => f.startsWith(bundle?.dir ?? '-'));
    expect(userFiles).toEqual([join(bundle.dir, 'goondan.yaml'), join(bundle.dir, 'nested/deeper/agents.yml')]);
    expect(loaded.resources.filter((r) => r.packageName === '').map((r) => `${r.kind}/${r.name}`)).toEqual(['Model/m', 'Swarm/s', 'Agent/a']);
  });

  test('a single YAML file loads only that file (plus the built-in package), whatever its name', async () => {
    bundle = tempBundle({ 'my-bundle.yaml': MOCK_MODEL, 'agents.yaml': 'broken: [' });
    const loaded = await loadBundle(join(bundle.dir, 'my-bundle.yaml'), { env: {} });
    expect(loaded.errors).toEqual([]);
    expect(loaded.rootDir).toBe(bundle.dir);
    expect(loaded.resources.some((r) => r.packageName === '@goondan/base' && r.name === 'bash')).toBe(true);
  });

  test('the built-in package is loaded implicitly and tagged @goondan/base with its own bundle root', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    const bash = loaded.resources.find((r) => r.kind === 'Tool' && r.name === 'bash');
    expect(bash?.packageName).toBe('@goondan/base');
    expect(bash?.bundleRoot).toBe(BASE_PACKAGE_DIR);
    expect(loaded.packageName).toBe('');
  });

  test('the Package document names the user package', async () => {
    bundle = tempBundle({ 'goondan.yaml': `apiVersion: goondan.ai/v1\nkind: Package\nmetadata: { name: "@acme/demo" }\nspec: { version: "1.2.3" }\n---\n${MOCK_MODEL}` });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
    expect(loaded.packageName).toBe('@acme/demo');
    expect(loaded.resources.find((r) => r.kind === 'Model')?.packageName).toBe('@acme/demo');
  });

  test('loading is deterministic: the same bundle gives the same problems in the same order', async () => {
    bundle = tempBundle({ 'b/agents.yaml': 'kind: Nope\n', 'a/agents.yaml': 'kind: Nope2\n', 'goondan.yaml': 'kind: Nope3\n' });
    const first = await loadBundle(bundle.dir, { env: {} });
    const second = await loadBundle(bundle.dir, { env: {} });
    expect(first.errors.map((e) => e.file)).toEqual([join(bundle.dir, 'a/agents.yaml'), join(bundle.dir, 'b/agents.yaml'), join(bundle.dir, 'goondan.yaml')]);
    expect(second.errors).toEqual(first.errors);
  });
});

describe('what goondan run would refuse', () => {
  test('agents without a Swarm are E_CONFIG_SWARM_NOT_FOUND at the first agent, with the Swarm to add as the hint', async () => {
    bundle = tempBundle({
      'goondan.yaml': `${MOCK_MODEL}---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec: { modelConfig: { modelRef: Model/m } }\n---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: b }\nspec: { modelConfig: { modelRef: Model/m } }\n`,
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors.map((e) => ({ code: e.code, line: e.line, message: e.message }))).toEqual([
      { code: 'E_CONFIG_SWARM_NOT_FOUND', line: 6, message: 'the bundle defines agents (a, b) but no Swarm: goondan run has nothing to start' },
    ]);
    expect(loaded.errors[0]?.suggestion).toContain('agents: [Agent/a, Agent/b]');
  });

  test('an empty bundle file is invalid; a package of tools alone needs no Swarm', async () => {
    bundle = tempBundle({ 'goondan.yaml': '# nothing yet\n' });
    expect((await loadBundle(bundle.dir, { env: {} })).errors.map((e) => e.message)).toEqual(['the bundle defines no resources']);
    bundle.remove();
    bundle = tempBundle({ 'goondan.yaml': `${MOCK_MODEL}` });
    expect((await loadBundle(bundle.dir, { env: {} })).errors).toEqual([]);
  });
});

describe('limits', () => {
  test('a file over 1 MB is rejected with E_CONFIG_FILE_TOO_LARGE and not parsed', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL, 'agents.yaml': `# ${'x'.repeat(1024 * 1024)}\nbroken: [\n` });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors.map((e) => [e.code, e.file])).toEqual([['E_CONFIG_FILE_TOO_LARGE', join(bundle.dir, 'agents.yaml')]]);
  });

  test('an unreadable resource file is E_CONFIG_READ_FAILED', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL });
    symlinkSync(join(bundle.dir, 'missing-target.yaml'), join(bundle.dir, 'agents.yaml'));
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors.map((e) => e.code)).toEqual(['E_CONFIG_READ_FAILED']);
  });
});

describe('all problems are reported in one run', () => {
  test('problems of different kinds in several files all appear', async () => {
    bundle = tempBundle({
      'goondan.yaml': `${MOCK_MODEL}---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: Bad_Name }\nspec:\n  modelConfig: { modelRef: Model/nope }\n  colour: blue\n`,
      'tools.yaml': 'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec: { entry: ../x.ts, exports: [] }\n',
      'swarms.yaml': 'broken: [\n',
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors.map((e) => e.code).sort()).toEqual(
      ['E_CONFIG_INVALID_NAME', 'E_CONFIG_NO_EXPORTS', 'E_CONFIG_PARSE_ERROR', 'E_CONFIG_PATH_ESCAPE', 'E_CONFIG_REF_NOT_FOUND', 'E_CONFIG_UNKNOWN_FIELD'].sort(),
    );
  });

  test('every problem has file, 1-based line and column, path and a message', async () => {
    bundle = tempBundle({ 'goondan.yaml': 'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: m }\nspec: { provider: nope, model: 1 }\n' });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors.length).toBe(2);
    for (const problem of loaded.errors) {
      expect(problem.file).toBe(join(bundle.dir, 'goondan.yaml'));
      expect(problem.line).toBe(4);
      expect(problem.column).toBeGreaterThan(1);
      expect(problem.path).toMatch(/^spec\.(provider|model)$/);
    }
  });
});
