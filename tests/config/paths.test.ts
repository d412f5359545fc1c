/** entry / systemRef stay inside the bundle root (SPEC.md §1.3), also through symlinks. */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgentPlan, loadBundle } from '../../shared/config/index.ts';
import { MOCK_MODEL, type TempBundle, tempBundle } from './temp-bundle.ts';

let bundle: TempBundle | undefined;
let outside: string | undefined;
afterEach(() => {
  bundle?.remove();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

const RUN_HANDLER = "export const handlers = { run: () => 'ran' };\n";
const tool = (entry: string) => `apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec:\n  entry: ${entry}\n  exports: [{ name: run, description: Run., parameters: { type: object } }]\n`;

async function codes(): Promise<string[]> {
  const loaded = await loadBundle(bundle?.dir ?? '', { env: {} });
  return loaded.errors.map((e) => `${e.code} ${e.path}`);
}

describe('paths stay inside the bundle root', () => {
  test('an absolute entry is E_CONFIG_PATH_ESCAPE', async () => {
    bundle = tempBundle({ 'tools.yaml': tool('/etc/passwd') });
    expect(await codes()).toEqual(['E_CONFIG_PATH_ESCAPE spec.entry']);
  });

  test('a ../ that leaves the root is rejected even when the file exists', async () => {
    bundle = tempBundle({ 'sub/tools.yaml': tool('../../x.ts') });
    writeFileSync(join(bundle.dir, '..', 'x.ts'), '');
    expect(await codes()).toEqual(['E_CONFIG_PATH_ESCAPE spec.entry']);
    rmSync(join(bundle.dir, '..', 'x.ts'));
  });

  test('a ../ that stays inside the root is fine', async () => {
    bundle = tempBundle({ 'tools.yaml': tool('./lib/../index.ts'), 'index.ts': RUN_HANDLER });
    expect(await codes()).toEqual([]);
  });

  test('a symlink pointing outside the root is E_CONFIG_PATH_ESCAPE', async () => {
    outside = mkdtempSync(join(tmpdir(), 'goondan-outside-'));
    writeFileSync(join(outside, 'evil.ts'), '');
    bundle = tempBundle({ 'tools.yaml': tool('./link.ts') });
    symlinkSync(join(outside, 'evil.ts'), join(bundle.dir, 'link.ts'));
    expect(await codes()).toEqual(['E_CONFIG_PATH_ESCAPE spec.entry']);
  });

  test('systemRef follows the same rule', async () => {
    bundle = tempBundle({ 'goondan.yaml': `${MOCK_MODEL}---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec:\n  modelConfig: { modelRef: Model/m }\n  prompt: { systemRef: ../prompt.md }\n` });
    expect(await codes()).toEqual(['E_CONFIG_PATH_ESCAPE spec.prompt.systemRef']);
  });

  test('an entry written as .js resolves to the sibling .ts', async () => {
    bundle = tempBundle({
      'goondan.yaml': `${MOCK_MODEL}---\n${tool('./tool.js')}---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec: { modelConfig: { modelRef: Model/m }, tools: [Tool/t] }\n---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: s }\nspec: { entryAgent: Agent/a, agents: [Agent/a] }\n`,
      'tool.ts': RUN_HANDLER,
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
    expect(buildAgentPlan(loaded, 's', 'a', {}).tools[0]?.entryPath).toBe(join(bundle.dir, 'tool.ts'));
  });
});
