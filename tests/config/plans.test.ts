/** Plans built from loaded bundles (shared/types/bundle.ts): what the runtime consumes. */
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import {
  BASE_PACKAGE_DIR,
  buildAgentPlan,
  buildConnectionPlans,
  buildSwarmPlan,
  ConfigError,
  loadBundle,
  selectSwarm,
} from '../../shared/config/index.ts';
import { FIXTURES_DIR } from './fixture-expectations.ts';
import { MOCK_MODEL, type TempBundle, tempBundle } from './temp-bundle.ts';

const ALL_KINDS = join(FIXTURES_DIR, 'all-kinds');

function configErrorCodes(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.problems.map((p) => p.code);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

const agent = (name: string, extra = '') => `---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: ${name} }\nspec:\n  modelConfig: { modelRef: Model/m }\n${extra}`;
const swarm = (name: string, agents: string) => `---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: ${name} }\nspec: { entryAgent: Agent/${agents.split(',')[0]}, agents: [${agents.split(',').map((a) => `Agent/${a}`).join(', ')}] }\n`;

describe('selectSwarm: the named one, else the only one, else "default"', () => {
  test('picks by name, the only swarm, or "default" among several', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL + agent('a') + swarm('one', 'a') });
    let loaded = await loadBundle(bundle.dir, { env: {} });
    expect(selectSwarm(loaded)).toBe('one');
    expect(selectSwarm(loaded, 'one')).toBe('one');
    bundle.write('swarms.yaml', swarm('default', 'a').slice(4) + swarm('other', 'a'));
    loaded = await loadBundle(bundle.dir, { env: {} });
    expect(selectSwarm(loaded)).toBe('default');
  });

  test('an unknown name, or several swarms without "default", is E_CONFIG_SWARM_NOT_FOUND', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL + agent('a') + swarm('one', 'a') + swarm('two', 'a') });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(configErrorCodes(() => selectSwarm(loaded))).toEqual(['E_CONFIG_SWARM_NOT_FOUND']);
    expect(configErrorCodes(() => selectSwarm(loaded, 'tree'))).toEqual(['E_CONFIG_SWARM_NOT_FOUND']);
    expect(configErrorCodes(() => buildSwarmPlan(loaded, 'tree'))).toEqual(['E_CONFIG_SWARM_NOT_FOUND']);
  });
});

describe('buildSwarmPlan', () => {
  test('resolves agents and applies the swarm policy', async () => {
    const loaded = await loadBundle(ALL_KINDS, { env: {} });
    expect(buildSwarmPlan(loaded, 'default')).toEqual({
      name: 'default',
      instanceKey: 'all-kinds demo',
      workspaceId: 'all-kinds-demo',
      entryAgent: 'greeter',
      agents: ['greeter', 'helper'],
      maxStepsPerTurn: 8,
      shutdownGracePeriodMs: 5000,
      startupTimeoutMs: 30000,
      durability: { fsync: 'batch', retention: { runtimeEventsMaxBytes: 16 * 1024 * 1024, runtimeEventsMaxAgeMs: 7 * 24 * 3_600_000, inboxCompactLines: 200 } },
      lifecycle: { ttlMs: 300000 },
      interAgent: { instanceKeys: 'scoped', sharedInstanceKeys: [], maxHops: 32, maxMessagesPerTrace: 256 },
    });
  });

  test('defaults: instanceKey = name, maxStepsPerTurn 32, grace 300 s', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL + agent('a') + swarm('My Swarm'.toLowerCase().replace(' ', '-'), 'a') });
    const plan = buildSwarmPlan(await loadBundle(bundle.dir, { env: {} }), 'my-swarm');
    expect([plan.instanceKey, plan.workspaceId, plan.maxStepsPerTurn, plan.shutdownGracePeriodMs]).toEqual(['my-swarm', 'my-swarm', 32, 300_000]);
  });

  test('a bundle with errors cannot produce plans: ConfigError carries its problems', async () => {
    bundle = tempBundle({ 'goondan.yaml': MOCK_MODEL + agent('a', '  colour: red\n') + swarm('s', 'a') });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(configErrorCodes(() => buildSwarmPlan(loaded, 's'))).toEqual(['E_CONFIG_UNKNOWN_FIELD']);
  });
});

describe('buildAgentPlan', () => {
  test('model, prompt file, tools with merged config, and extensions in order', async () => {
    const loaded = await loadBundle(ALL_KINDS, { env: {} });
    const plan = buildAgentPlan(loaded, 'default', 'greeter', {});
    expect(plan.model).toEqual({ name: 'scripted', provider: 'mock', model: 'scripted-v1', options: { default: 'hello' }, capabilities: { toolCalling: true, streaming: false } });
    expect(plan.modelParams).toEqual({ temperature: 0.2, maxTokens: 256 });
    expect(plan.systemPrompt).toBe('You greet people and echo what they say.\n');
    expect(plan.tools.map((t) => [t.name, t.packageName, t.errorMessageLimit, t.config])).toEqual([
      ['echo', '@fixtures/all-kinds', 500, { prefix: '>> ' }],
      ['wait', '@goondan/base', 600, {}],
    ]);
    expect(plan.tools[0]?.entryPath).toBe(join(ALL_KINDS, 'tools/echo/index.ts'));
    expect(plan.tools[1]?.entryPath).toBe(join(BASE_PACKAGE_DIR, 'tools/wait/index.ts'));
    expect(plan.extensions.map((e) => e.name)).toEqual(['context-message', 'audit', 'message-window', 'required-tools-guard']);
    expect(plan.extensions.find((e) => e.name === 'message-window')?.config).toEqual({ maxMessages: 20 });
    expect(plan.extensions.find((e) => e.name === 'required-tools-guard')?.config).toEqual({ requiredTools: ['echo__say'] });
    expect(plan.requiredTools).toEqual(['echo__say']);
  });

  test('the upstream spelling prompts {systemPrompt | systemRef} gives the same system prompt', async () => {
    bundle = tempBundle({
      'goondan.yaml': MOCK_MODEL + agent('inline', '  prompts: { systemPrompt: Inline upstream. }\n') + agent('file', '  prompts: { systemRef: ./p.md }\n') + swarm('s', 'inline,file'),
      'p.md': 'From the file.\n',
    });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
    expect(buildAgentPlan(loaded, 's', 'inline', {}).systemPrompt).toBe('Inline upstream.');
    expect(buildAgentPlan(loaded, 's', 'file', {}).systemPrompt).toBe('From the file.\n');
  });

  test('context-message is not added twice when the agent lists it, and keeps the agent\'s position', async () => {
    bundle = tempBundle({
      'goondan.yaml': MOCK_MODEL + agent('a', '  prompt: { system: Hi. }\n  extensions: [Extension/logging, { ref: Extension/context-message, config: { includeInbound: true } }]\n') + swarm('s', 'a'),
    });
    const plan = buildAgentPlan(await loadBundle(bundle.dir, { env: {} }), 's', 'a', {});
    expect(plan.extensions.map((e) => e.name)).toEqual(['logging', 'context-message']);
    expect(plan.extensions[1]?.config).toEqual({ includeAgentPrompt: true, includeCatalog: false, includeInbound: true, includeCall: true });
    expect(plan.systemPrompt).toBe('Hi.');
  });

  test('an agent outside the swarm is E_CONFIG_AGENT_NOT_IN_SWARM', async () => {
    const loaded = await loadBundle(ALL_KINDS, { env: {} });
    expect(configErrorCodes(() => buildAgentPlan(loaded, 'default', 'nobody', {}))).toEqual(['E_CONFIG_AGENT_NOT_IN_SWARM']);
  });
});

describe('ValueSource resolution happens when plans are built', () => {
  const openaiModel = (apiKey: string) => `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: m }\nspec:\n  provider: openai\n  model: gpt-4o-mini\n  apiKey: ${apiKey}\n`;

  test('a missing env var for a required apiKey is E_CONFIG_ENV_MISSING naming the variable and the model', async () => {
    bundle = tempBundle({ 'goondan.yaml': openaiModel('{ valueFrom: { env: MY_KEY } }') + agent('a') + swarm('s', 'a') });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    try {
      buildAgentPlan(loaded, 's', 'a', {});
      throw new Error('expected a ConfigError');
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatchObject({ code: 'E_CONFIG_ENV_MISSING', file: join(bundle.dir, 'goondan.yaml'), line: 7, path: 'spec.apiKey' });
      expect(error.problems[0]?.message).toContain('MY_KEY');
      expect(error.problems[0]?.message).toContain('Model/m');
    }
  });

  test('the variable is read; when the provider has its own key variable the field is optional and stays unset', async () => {
    bundle = tempBundle({ 'goondan.yaml': openaiModel('{ valueFrom: { env: MY_KEY } }') + agent('a') + swarm('s', 'a') });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(buildAgentPlan(loaded, 's', 'a', { MY_KEY: 'sk-1' }).model.apiKey).toBe('sk-1');
    const fallback = buildAgentPlan(loaded, 's', 'a', { OPENAI_API_KEY: 'sk-sdk' }).model;
    expect('apiKey' in fallback).toBe(false);
    expect(() => buildAgentPlan(loaded, 's', 'a', { MY_KEY: '' })).toThrow(/MY_KEY/);
  });

  test('secretRef reads GOONDAN_SECRET_<NAME>_<KEY>; inline values pass through', async () => {
    bundle = tempBundle({ 'goondan.yaml': openaiModel('{ valueFrom: { secretRef: { ref: Secret/open-ai, key: api-key } } }') + agent('a') + swarm('s', 'a') });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(buildAgentPlan(loaded, 's', 'a', { GOONDAN_SECRET_OPEN_AI_API_KEY: 'sk-secret' }).model.apiKey).toBe('sk-secret');
    bundle.write('goondan.yaml', openaiModel('{ value: sk-inline }') + agent('a') + swarm('s', 'a'));
    expect(buildAgentPlan(await loadBundle(bundle.dir, { env: {} }), 's', 'a', {}).model.apiKey).toBe('sk-inline');
  });

  test('only resources the plan uses are looked up: an unused model with a missing key does not fail', async () => {
    bundle = tempBundle({ 'goondan.yaml': `${MOCK_MODEL}---\n${openaiModel('{ valueFrom: { env: MY_KEY } }').replace('name: m', 'name: unused')}${agent('a')}${swarm('s', 'a')}` });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.warnings.filter((w) => w.code === 'E_CONFIG_ENV_MISSING')).toEqual([]);
    expect(buildAgentPlan(loaded, 's', 'a', {}).model.provider).toBe('mock');
  });

  test('validate-time: missing variables of used resources are warnings, not errors', async () => {
    bundle = tempBundle({ 'goondan.yaml': openaiModel('{ valueFrom: { env: MY_KEY } }') + agent('a') + swarm('s', 'a') });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings.map((w) => [w.code, w.path])).toContainEqual(['E_CONFIG_ENV_MISSING', 'spec.apiKey']);
  });
});

describe('buildConnectionPlans', () => {
  test('connector entry, events, config/secrets, and routes with resolved agents', async () => {
    const loaded = await loadBundle(ALL_KINDS, { env: {} });
    const [plan, ...rest] = buildConnectionPlans(loaded, 'default', { FIXTURE_TICKER_TOKEN: 't0k' });
    expect(rest).toEqual([]);
    expect(plan).toEqual({
      name: 'ticks',
      connectorName: 'ticker',
      connectorEntryPath: join(ALL_KINDS, 'connectors/ticker/index.ts'),
      events: [{ name: 'tick', properties: { room: { type: 'string' }, count: { type: 'number', optional: true } } }],
      swarmName: 'default',
      config: { interval: '5' },
      secrets: { token: 't0k' },
      rules: [
        { match: { event: 'tick', properties: { room: 'helpers' } }, route: { agent: 'helper', instanceKeyProperty: 'room', instanceKeyPrefix: 'room:' } },
        { route: { instanceKey: 'lobby' } },
      ],
    });
  });

  test('a missing optional secret leaves the key out (never "")', async () => {
    const loaded = await loadBundle(ALL_KINDS, { env: {} });
    expect(buildConnectionPlans(loaded, 'default', {})[0]?.secrets).toEqual({});
  });

  test('a Connection without swarmRef feeds the first swarm', async () => {
    const loaded = await loadBundle(join(FIXTURES_DIR, 'upstream-style'), { env: {} });
    expect(buildConnectionPlans(loaded, 'default', {}).map((c) => c.name)).toEqual(['cli-to-default', 'webhook-in']);
  });
});
