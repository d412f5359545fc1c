/** Reference syntax and the resolution table of ARCHITECTURE §5. */
import { afterEach, describe, expect, test } from 'bun:test';
import { buildAgentPlan, loadBundle } from '../../shared/config/index.ts';
import { ResourceIndex, type IndexedEntry } from '../../shared/config/resource-index.ts';
import { MOCK_MODEL, SWARM_OF_A, type TempBundle, tempBundle } from './temp-bundle.ts';

const entries: IndexedEntry[] = [
  { kind: 'Tool', name: 'bash', packageName: '@goondan/base' },
  { kind: 'Tool', name: 'bash', packageName: '' },
  { kind: 'Tool', name: 'wait', packageName: '@goondan/base' },
  { kind: 'Tool', name: 'jira', packageName: '@acme/a' },
  { kind: 'Tool', name: 'slack', packageName: '@acme/a' },
  { kind: 'Tool', name: 'slack', packageName: '@acme/b' },
];
const index = new ResourceIndex(entries);

describe('resolution order: own package, then @goondan/base, then a unique match', () => {
  test('an unqualified ref prefers the referrer\'s own package', () => {
    const r = index.resolve({ kind: 'Tool', name: 'bash' }, '');
    expect(r.ok && r.target.packageName).toBe('');
  });

  test('from another package, an unqualified ref falls back to @goondan/base', () => {
    const r = index.resolve({ kind: 'Tool', name: 'bash' }, '@acme/a');
    expect(r.ok && r.target.packageName).toBe('@goondan/base');
  });

  test('a name found in exactly one other package resolves there', () => {
    const r = index.resolve({ kind: 'Tool', name: 'jira' }, '');
    expect(r.ok && r.target.packageName).toBe('@acme/a');
  });

  test('a name found in several other packages is E_CONFIG_AMBIGUOUS_REF', () => {
    const r = index.resolve({ kind: 'Tool', name: 'slack' }, '');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('E_CONFIG_AMBIGUOUS_REF');
      expect(r.message).toContain('@acme/a');
      expect(r.message).toContain('@acme/b');
      expect(r.suggestion).toContain('package');
    }
  });

  test('a ref with package resolves only inside that package', () => {
    const r = index.resolve({ kind: 'Tool', name: 'bash', package: '@goondan/base' }, '');
    expect(r.ok && r.target.packageName).toBe('@goondan/base');
    const missing = index.resolve({ kind: 'Tool', name: 'jira', package: '@goondan/base' }, '');
    expect(!missing.ok && missing.code).toBe('E_CONFIG_REF_NOT_FOUND');
  });

  test('an unresolved ref suggests the closest existing names', () => {
    const r = index.resolve({ kind: 'Tool', name: 'wiat' }, '');
    expect(!r.ok && r.suggestion).toBe('did you mean "Tool/wait"?');
  });
});

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

async function refProblems(tools: string): Promise<Array<{ code: string; path: string }>> {
  bundle = tempBundle({
    'goondan.yaml': `${MOCK_MODEL}---\n${SWARM_OF_A}---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec:\n  modelConfig: { modelRef: Model/m }\n  tools:\n${tools}`,
  });
  const loaded = await loadBundle(bundle.dir, { env: {} });
  return loaded.errors.map((e) => ({ code: e.code, path: e.path }));
}

describe('reference syntax', () => {
  test('"Kind/name", {kind, name, package} and {ref, config} are all accepted', async () => {
    expect(
      await refProblems(
        '    - Tool/bash\n    - { kind: Tool, name: wait, package: "@goondan/base", apiVersion: goondan.ai/v1 }\n    - { ref: Tool/json-query, config: { a: 1 } }\n    - ref: { kind: Tool, name: http-fetch }\n',
      ),
    ).toEqual([]);
  });

  test('a string without exactly one "/" is E_CONFIG_INVALID_REF', async () => {
    expect(await refProblems('    - bash\n    - /bash\n    - Tool/\n')).toEqual([
      { code: 'E_CONFIG_INVALID_REF', path: 'spec.tools[0]' },
      { code: 'E_CONFIG_INVALID_REF', path: 'spec.tools[1]' },
      { code: 'E_CONFIG_INVALID_REF', path: 'spec.tools[2]' },
    ]);
  });

  test('an unknown field in a ref object or item is E_CONFIG_INVALID_REF at that field', async () => {
    expect(await refProblems('    - { kind: Tool, name: bash, pkg: x }\n    - { ref: Tool/bash, settings: {} }\n')).toEqual([
      { code: 'E_CONFIG_INVALID_REF', path: 'spec.tools[0].pkg' },
      { code: 'E_CONFIG_INVALID_REF', path: 'spec.tools[1].settings' },
    ]);
  });

  test('selectors and overrides are rejected explicitly', async () => {
    expect(await refProblems('    - selector: { kind: Tool, name: bash }\n    - { ref: Tool/bash, overrides: { spec: {} } }\n')).toEqual([
      { code: 'E_CONFIG_SELECTOR_UNSUPPORTED', path: 'spec.tools[0].selector' },
      { code: 'E_CONFIG_SELECTOR_UNSUPPORTED', path: 'spec.tools[1].overrides' },
    ]);
  });

  test('a ref to the wrong kind is E_CONFIG_REF_KIND_MISMATCH', async () => {
    expect(await refProblems('    - Model/m\n')).toEqual([{ code: 'E_CONFIG_REF_KIND_MISMATCH', path: 'spec.tools[0]' }]);
  });

  test('an unqualified ref to a built-in resolves to @goondan/base; a user resource of the same name wins', async () => {
    bundle = tempBundle({
      'goondan.yaml': `${MOCK_MODEL}---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: bash }\nspec:\n  entry: ./bash.ts\n  exports: [{ name: run, description: Mine., parameters: { type: object } }]\n---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec:\n  modelConfig: { modelRef: Model/m }\n  tools: [Tool/bash, Tool/wait]\n---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: s }\nspec: { entryAgent: Agent/a, agents: [Agent/a] }\n`,
      'bash.ts': "export const handlers = { run: () => 'mine' };\n",
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
    const plan = buildAgentPlan(loaded, 's', 'a', {});
    expect(plan.tools.map((t) => `${t.packageName || '(bundle)'}:${t.name}`)).toEqual(['(bundle):bash', '@goondan/base:wait']);
  });
});
