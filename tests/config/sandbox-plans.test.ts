/**
 * Issue 9 configuration: Swarm `policy.sandbox`, Agent `spec.sandbox` and a tool ref's
 * `config.sandbox` resolve into AgentPlan.sandbox / ToolPlan.sandbox, narrower levels overriding
 * wider ones field by field; malformed blocks fail the load naming the field.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { buildAgentPlan, loadBundle } from '../../shared/config/index.ts';
import { DEFAULT_SANDBOX, DEFAULT_SANDBOX_LIMITS } from '../../shared/config/sandbox-plan.ts';
import type { AgentPlan } from '../../shared/types/bundle.ts';
import { MOCK_MODEL, type TempBundle, tempBundle } from './temp-bundle.ts';

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());
// The first load compiles every schema; on a loaded 2-core machine that alone can take seconds.
const LOAD_TEST_MS = 30_000;

const agent = (name: string, spec = '') => `---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: ${name} }\nspec:\n  modelConfig: { modelRef: Model/m }\n${spec}`;
const swarm = (agents: string[], policy = '') =>
  `---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: default }\nspec:\n  entryAgent: Agent/${agents[0]}\n  agents: [${agents.map((a) => `Agent/${a}`).join(', ')}]\n${policy}`;

async function planOf(yaml: string, agentName: string): Promise<AgentPlan> {
  bundle = tempBundle({ 'goondan.yaml': yaml });
  const loaded = await loadBundle(bundle.dir, { env: {} });
  expect(loaded.errors).toEqual([]);
  return buildAgentPlan(loaded, 'default', agentName, {});
}

async function problemsOf(yaml: string): Promise<Array<{ code: string; message: string; line?: number }>> {
  bundle = tempBundle({ 'goondan.yaml': yaml });
  const loaded = await loadBundle(bundle.dir, { env: {} });
  return loaded.errors.map((p) => ({ code: p.code, message: p.message, ...(p.line !== undefined ? { line: p.line } : {}) }));
}

describe('defaults', () => {
  test('without any sandbox setting: mode bwrap, network off, the default limits, nothing extra shown', async () => {
    const plan = await planOf(MOCK_MODEL + agent('a', '  tools: [Tool/bash]\n') + swarm(['a']), 'a');
    expect(plan.sandbox).toEqual({ mode: 'bwrap', network: false, limits: { cpuSeconds: 300, memoryMb: 4096, processes: 512, fileSizeMb: 1024 }, readOnlyPaths: [] });
    expect(plan.sandbox).toEqual(DEFAULT_SANDBOX);
    expect(plan.tools[0]?.sandbox).toEqual(DEFAULT_SANDBOX);
  }, LOAD_TEST_MS);
});

describe('the agent overrides the swarm field by field; a tool ref overrides the agent', () => {
  test('swarm policy.sandbox applies to every agent; spec.sandbox changes only the fields it names', async () => {
    const yaml =
      MOCK_MODEL +
      agent('plain', '  tools: [Tool/bash]\n') +
      agent('net', '  sandbox: { network: true, limits: { memoryMb: 512 }, readOnlyPaths: [/srv/toolchain] }\n  tools: [Tool/bash]\n') +
      swarm(['plain', 'net'], '  policy:\n    sandbox: { mode: required, limits: { cpuSeconds: 60, processes: 64 }, readOnlyPaths: [/opt/sdk] }\n');
    const plain = await planOf(yaml, 'plain');
    expect(plain.sandbox).toEqual({ mode: 'required', network: false, limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 60, processes: 64 }, readOnlyPaths: ['/opt/sdk'] });
    const net = await planOf(yaml, 'net');
    expect(net.sandbox).toEqual({
      mode: 'required',
      network: true,
      limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 60, processes: 64, memoryMb: 512 },
      readOnlyPaths: ['/opt/sdk', '/srv/toolchain'],
    });
  }, LOAD_TEST_MS);

  test('tools[].config.sandbox sets that tool\'s sandbox and leaves the tool\'s own config', async () => {
    const yaml =
      MOCK_MODEL +
      agent('a', '  sandbox: { limits: { fileSizeMb: 10 } }\n  tools:\n    - ref: Tool/bash\n      config: { defaultTimeoutMs: 5000, sandbox: { network: true, mode: none } }\n    - Tool/file-system\n') +
      swarm(['a']);
    const plan = await planOf(yaml, 'a');
    const [bash, files] = plan.tools;
    expect(bash?.config).toMatchObject({ defaultTimeoutMs: 5000 });
    expect(bash?.config).not.toHaveProperty('sandbox');
    expect(bash?.sandbox).toEqual({ mode: 'none', network: true, limits: { ...DEFAULT_SANDBOX_LIMITS, fileSizeMb: 10 }, readOnlyPaths: [] });
    expect(files?.sandbox).toEqual({ ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX_LIMITS, fileSizeMb: 10 } });
  }, LOAD_TEST_MS);
});

describe('malformed sandbox blocks fail the load naming the field', () => {
  test('an unknown mode, a misspelt field, a negative limit, a relative path', async () => {
    const problems = await problemsOf(
      MOCK_MODEL +
        agent('a', '  sandbox: { mode: docker, netwrok: true, limits: { memoryMb: -1 }, readOnlyPaths: [relative/dir] }\n') +
        swarm(['a'], '  policy:\n    sandbox: { limits: { cpu: 5 } }\n'),
    );
    const text = problems.map((p) => `${p.code} ${p.message}`).join('\n');
    expect(text).toContain('E_CONFIG_SCHEMA_INVALID spec.sandbox.mode must be one of: bwrap, none, required');
    expect(text).toContain('E_CONFIG_UNKNOWN_FIELD unknown field "netwrok" in spec.sandbox');
    expect(text).toContain('spec.sandbox.limits.memoryMb');
    expect(text).toContain('spec.sandbox.readOnlyPaths[0]');
    expect(text).toContain('E_CONFIG_UNKNOWN_FIELD unknown field "cpu" in spec.policy.sandbox.limits');
  }, LOAD_TEST_MS);

  test('a tool ref\'s config.sandbox is checked too, with its position', async () => {
    const problems = await problemsOf(MOCK_MODEL + agent('a', '  tools:\n    - ref: Tool/bash\n      config: { sandbox: { netwrok: true } }\n') + swarm(['a']));
    expect(problems).toEqual([{ code: 'E_CONFIG_UNKNOWN_FIELD', message: 'unknown field "netwrok" in spec.tools[0].config.sandbox', line: 13 }]);
  }, LOAD_TEST_MS);
});
