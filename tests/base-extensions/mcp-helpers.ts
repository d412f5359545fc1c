/**
 * Shared setup of the mcp extension tests: the extension and probe plans, a real fixture MCP
 * server command, and scripted mock rules.
 */
import { join, resolve } from 'node:path';
import type { ExtensionPlan } from '../../shared/types/bundle.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolResult } from '../../shared/types/tools.ts';
import { makePlan, removeDir, startEngine, type EngineHarness } from '../agent-process/helpers/engine-fixture.ts';
import { probe } from '../fixtures/mcp/probe-extension.ts';

export const REPO = resolve(import.meta.dir, '../..');
export const MCP_FIXTURES = join(REPO, 'tests/fixtures/mcp');
const MCP_ENTRY = join(REPO, 'bundles/base/extensions/mcp/index.ts');

/**
 * The fixture stdio server, run by the same bun binary that runs the tests. Unsandboxed unless
 * `extra` says otherwise: these tests are about MCP (and read the server's own pid); the sandbox
 * of stdio servers has its own tests (mcp-sandbox.test.ts).
 */
export function stdioServer(extra: JsonObject = {}): JsonObject {
  return { command: process.execPath, args: [join(MCP_FIXTURES, 'stdio-server.ts')], sandbox: false, ...extra };
}

export function mcpExtension(config: JsonObject): ExtensionPlan {
  return { name: 'mcp', packageName: '@goondan/base', entryPath: MCP_ENTRY, config };
}

export const probeExtension: ExtensionPlan = { name: 'probe', packageName: '', entryPath: join(MCP_FIXTURES, 'probe-extension.ts'), config: {} };

export interface ScriptStep {
  name: string;
  args?: JsonObject;
}

/** A mock rule: on `match`, call each step's tools in turn (one step each), then reply `done`. */
export function callRule(match: string, ...steps: ScriptStep[]): JsonObject {
  let then: JsonObject | string = 'done';
  for (const step of [...steps].reverse()) {
    const call: JsonObject = step.args === undefined ? { name: step.name } : { name: step.name, args: step.args };
    then = { toolCalls: [call], then };
  }
  if (typeof then === 'string') return { match, reply: then };
  return { match, ...then };
}

const harnesses: EngineHarness[] = [];

/** An engine whose agent uses the mcp extension (with `config`) and the probe, scripted by `rules`. */
export async function engineWithMcp(config: JsonObject, rules: JsonObject[] = [], options: Parameters<typeof startEngine>[1] = {}): Promise<EngineHarness> {
  const harness = await startEngine(makePlan({ extensions: [mcpExtension(config), probeExtension], script: { rules } }), options);
  harnesses.push(harness);
  return harness;
}

export async function closeEngines(): Promise<void> {
  for (const harness of harnesses.splice(0)) {
    await harness.engine.close();
    removeDir(harness.stateRoot);
  }
}

/** Copies: bun's toMatchObject may write its matchers into the object it checks. */
export function resultsOf(toolName: string): ToolResult[] {
  return probe.results.filter((result) => result.toolName === toolName).map((result) => structuredClone(result));
}

/** Warnings (pino level 40) with the given code. */
export function warnings(harness: EngineHarness, code: string): Array<Record<string, unknown>> {
  return harness.logLines().filter((line) => line.level === 40 && line.code === code);
}

