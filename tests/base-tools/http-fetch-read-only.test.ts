/**
 * http-fetch__get is read-only for the permission policy only while it can reach nothing private:
 * an agent whose tool ref opens `config.allow` gets a catalog item without `readOnly`
 * (`Tool.spec.exports[].readOnlyUnlessConfig: [allow]`), so the policy's read-only shortcut stops
 * applying to it.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { ToolRegistry } from '../../agent-process/tools/tool-registry.ts';
import { handlers } from '../../bundles/base/tools/http-fetch/index.ts';
import { buildAgentPlan, loadBundle } from '../../shared/config/index.ts';
import { MOCK_MODEL, type TempBundle, tempBundle } from '../config/temp-bundle.ts';

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

const agent = (name: string, config: string) => `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: ${name} }
spec:
  modelConfig: { modelRef: Model/m }
  tools:
    - ref: { kind: Tool, name: http-fetch, package: "@goondan/base" }${config ? `\n      config: ${config}` : ''}
`;

const SWARM = `apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec: { entryAgent: Agent/plain, agents: [Agent/plain, Agent/opened, Agent/emptied] }
`;

async function catalogReadOnly(agentName: string): Promise<Record<string, boolean | undefined>> {
  const loaded = await loadBundle(bundle?.dir ?? '', { env: {} });
  expect(loaded.errors).toEqual([]);
  const registry = new ToolRegistry();
  for (const tool of buildAgentPlan(loaded, 's', agentName, {}).tools) registry.registerToolPlan(tool, { handlers });
  return Object.fromEntries(registry.list().map((tool) => [tool.item.name, tool.item.readOnly]));
}

describe('http-fetch__get is read-only only while config.allow is empty', () => {
  test('without an allow list get is read-only; with one it is not; post never is', async () => {
    bundle = tempBundle({
      'goondan.yaml': [MOCK_MODEL, agent('plain', ''), agent('opened', '{ allow: ["10.0.0.0/8"] }'), agent('emptied', '{ allow: [] }'), SWARM].join('---\n'),
    });
    expect(await catalogReadOnly('plain')).toEqual({ 'http-fetch__get': true, 'http-fetch__post': undefined });
    expect(await catalogReadOnly('opened')).toEqual({ 'http-fetch__get': false, 'http-fetch__post': undefined });
    expect(await catalogReadOnly('emptied')).toEqual({ 'http-fetch__get': true, 'http-fetch__post': undefined });
  });

  test('readOnlyUnlessConfig is part of the Tool schema (a typo is a config error)', async () => {
    bundle = tempBundle({
      'goondan.yaml': `${MOCK_MODEL}---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec:\n  entry: ./t.ts\n  exports: [{ name: run, description: Run., parameters: { type: object }, readOnly: true, readOnlyUnlessConfig: allow }]\n`,
      't.ts': 'export const handlers = { run: () => null };\n',
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors.map((e) => e.path)).toContain('spec.exports[0].readOnlyUnlessConfig');
  });
});
