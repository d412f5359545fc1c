/**
 * context-message config (SPEC.md §5.4): the upstream options `includeAgentPrompt` and
 * `includeSwarmCatalog` are accepted and do what they say; unknown keys are rejected with
 * E_EXT_CONFIG naming the extension and the key, like every built-in extension's config.
 */
import { describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import type { ExtensionPlan } from '../../shared/types/bundle.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { baseMessages, makePlan, makeSwarm, trackEngines, userEvent, type EngineHarness } from '../agent-process/helpers/engine-fixture.ts';


const engines = trackEngines();
const contextMessage = (config: JsonObject): ExtensionPlan => ({
  name: 'context-message',
  packageName: '@goondan/base',
  entryPath: resolve(import.meta.dir, '../../bundles/base/extensions/context-message/index.ts'),
  config,
});
const systemText = (h: EngineHarness) => baseMessages(h.paths).find((m) => m.data.role === 'system')?.data.content;
const CATALOG = '[runtime_catalog]\nswarm: test-swarm\nself: tester\nentryAgent: tester\ncallableAgents: reviewer';

async function turnWith(config: JsonObject): Promise<EngineHarness> {
  const h = await engines.start(makePlan({ systemPrompt: 'You are terse.', extensions: [contextMessage(config)] }), { swarm: makeSwarm(['tester', 'reviewer']) });
  await h.engine.runTurn(userEvent('hi'));
  return h;
}

describe('upstream options', () => {
  test('includeAgentPrompt: false leaves the agent prompt out and keeps the runtime blocks', async () => {
    expect(systemText(await turnWith({ includeAgentPrompt: false, includeCatalog: true }))).toBe(CATALOG);
  });

  test('includeAgentPrompt: false with no block enabled sends no system message at all', async () => {
    expect(systemText(await turnWith({ includeAgentPrompt: false }))).toBeUndefined();
  });

  test('includeSwarmCatalog is the upstream name of includeCatalog, and wins when set', async () => {
    expect(systemText(await turnWith({ includeSwarmCatalog: true }))).toBe(`You are terse.\n\n${CATALOG}`);
    // extension.yaml sets includeCatalog: false; an agent's includeSwarmCatalog must still turn it on.
    expect(systemText(await turnWith({ includeCatalog: false, includeSwarmCatalog: true }))).toBe(`You are terse.\n\n${CATALOG}`);
    expect(systemText(await turnWith({ includeCatalog: true, includeSwarmCatalog: false }))).toBe('You are terse.');
  });

  test('the defaults: the prompt, no catalog, no inbound block', async () => {
    expect(systemText(await turnWith({}))).toBe('You are terse.');
  });
});

describe('a wrong type fails the agent start with E_EXT_CONFIG (unknown keys: extension-config-keys.test.ts)', () => {
  test('a wrong type is named', async () => {
    const start = engines.start(makePlan({ systemPrompt: 'P.', extensions: [contextMessage({ includeAgentPrompt: 'no' })] }));
    await expect(start).rejects.toThrow(/config\.includeAgentPrompt: must be boolean/);
  });
});
