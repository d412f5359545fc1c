import type { InterAgentReply } from '../../../shared/types/events.ts';
import { afterEach } from 'bun:test';
/**
 * Test helpers for the agent engine: AgentPlan / SwarmPlan objects built directly (the config
 * loader is not needed to test the engine), temp state roots, events and the instance files.
 */
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { newId } from '../../../shared/ids.ts';
import { DEFAULT_SANDBOX } from '../../../shared/config/sandbox-plan.ts';
import { instancePaths, type InstancePaths } from '../../../shared/state-paths.ts';
import type { AgentPlan, ExtensionPlan, SwarmPlan, ToolExportPlan, ToolPlan } from '../../../shared/types/bundle.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import type { JsonObject } from '../../../shared/types/json.ts';
import type { Message, MessageEvent } from '../../../shared/types/messages.ts';
import type { RuntimeEvent } from '../../../shared/types/turns.ts';
import { createAgentEngine, type AgentEngine, type AgentEngineOptions } from '../../../agent-process/engine/agent-engine.ts';
import { testSwarmPlan } from '../../helpers/test-plans.ts';

export const FIXTURES = resolve(import.meta.dir, '../../fixtures/engine');

export function fixtureTool(name: string, file: string, exports: ToolExportPlan[], extra: Partial<ToolPlan> = {}): ToolPlan {
  return { name, packageName: '', entryPath: join(FIXTURES, 'tools', file), errorMessageLimit: 1000, exports, config: {}, ...extra, sandbox: extra.sandbox ?? DEFAULT_SANDBOX };
}

export function fixtureExtension(name: string, file: string, config: JsonObject = {}): ExtensionPlan {
  return { name, packageName: '', entryPath: join(FIXTURES, 'extensions', file), config };
}

export const ECHO_EXPORTS: ToolExportPlan[] = [
  {
    name: 'say',
    description: 'Repeat a text.',
    parameters: { type: 'object', additionalProperties: false, properties: { text: { type: 'string' } }, required: ['text'] },
  },
  { name: 'inspect', description: 'Report the tool context.', parameters: { type: 'object', properties: {} } },
  {
    name: 'json',
    description: 'Echo arguments back.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      properties: {
        count: { type: 'integer' },
        mode: { enum: ['fast', 'slow'] },
        tags: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'] },
      },
      required: ['count'],
    },
  },
];

export const echoTool = (extra: Partial<ToolPlan> = {}) => fixtureTool('echo', 'echo.ts', ECHO_EXPORTS, extra);

export const failTool = (extra: Partial<ToolPlan> = {}) =>
  fixtureTool(
    'fail',
    'fail.ts',
    [
      {
        name: 'throw',
        description: 'Throw an error.',
        parameters: { type: 'object', properties: { message: { type: 'string' }, code: { type: 'string' }, suggestion: { type: 'string' } } },
      },
      { name: 'long', description: 'Throw a long error.', parameters: { type: 'object', properties: { length: { type: 'integer' } } } },
      { name: 'nonjson', description: 'Return a cycle.', parameters: { type: 'object', properties: {} } },
    ],
    extra,
  );

export const slowTool = () =>
  fixtureTool('slow', 'slow.ts', [
    {
      name: 'wait',
      description: 'Wait some milliseconds.',
      parameters: { type: 'object', properties: { ms: { type: 'integer' }, marker: { type: 'string' } }, required: ['ms'] },
    },
    {
      name: 'pause',
      description: 'Pause once (returns at once when the marker file exists).',
      parameters: { type: 'object', properties: { marker: { type: 'string' }, ms: { type: 'integer' } }, required: ['marker'] },
    },
    {
      name: 'hold',
      description: 'Wait until the test releases the gate (holdGate in the fixture).',
      parameters: { type: 'object', properties: { gate: { type: 'string' } }, required: ['gate'] },
    },
  ]);

export interface PlanInput {
  name?: string;
  tools?: ToolPlan[];
  extensions?: ExtensionPlan[];
  /** `mock` script (Model spec.options). */
  script?: JsonObject;
  systemPrompt?: string;
  model?: Partial<AgentPlan['model']>;
  modelParams?: AgentPlan['modelParams'];
  maxToolResultBytes?: number;
  sandbox?: AgentPlan['sandbox'];
}

export function makePlan(input: PlanInput = {}): AgentPlan {
  const plan: AgentPlan = {
    name: input.name ?? 'tester',
    packageName: '',
    bundleRoot: FIXTURES,
    model: { name: 'mock', provider: 'mock', model: 'scripted', options: input.script ?? {}, capabilities: {}, ...input.model },
    modelParams: input.modelParams ?? {},
    tools: input.tools ?? [],
    extensions: input.extensions ?? [],
    requiredTools: [],
    maxToolResultBytes: input.maxToolResultBytes ?? 65_536,
    sandbox: input.sandbox ?? DEFAULT_SANDBOX,
  };
  if (input.systemPrompt !== undefined) plan.systemPrompt = input.systemPrompt;
  return plan;
}

export function makeSwarm(agents: string[] = ['tester'], maxStepsPerTurn = 32): SwarmPlan {
  return { ...testSwarmPlan('test-swarm', agents, maxStepsPerTurn), entryAgent: agents[0] ?? 'tester', startupTimeoutMs: 30000 };
}

export function tempStateRoot(): string {
  return mkdtempSync(join(tmpdir(), 'goondan-engine-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A pino logger that keeps its lines in memory (tests assert on warnings). */
export function memoryLogger(): { logger: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  const logger = pino({ level: 'debug' }, stream);
  return { logger, lines: () => lines.flatMap((line) => line.split('\n')).filter((l) => l.trim() !== '').map((l) => JSON.parse(l)) };
}

export function userEvent(input: string, extra: Partial<AgentEvent> = {}): AgentEvent {
  return { id: newId('evt'), type: 'api.input', createdAt: new Date().toISOString(), input, source: { kind: 'api', name: 'test' }, ...extra };
}

export interface EngineHarness {
  engine: AgentEngine;
  stateRoot: string;
  paths: InstancePaths;
  runtimeEvents: RuntimeEvent[];
  logLines: () => Array<Record<string, unknown>>;
}

export async function startEngine(
  plan: AgentPlan,
  options: Partial<AgentEngineOptions> & { swarm?: SwarmPlan; stateRoot?: string } = {},
): Promise<EngineHarness> {
  const stateRoot = options.stateRoot ?? tempStateRoot();
  const swarm = options.swarm ?? makeSwarm([plan.name]);
  const instanceKey = options.instanceKey ?? 'user-1';
  const runtimeEvents: RuntimeEvent[] = [];
  const log = memoryLogger();
  const engine = await createAgentEngine({
    logger: log.logger,
    ...options,
    plan,
    swarm,
    instanceKey,
    stateRoot,
    onRuntimeEvent: (event) => {
      runtimeEvents.push(event);
      options.onRuntimeEvent?.(event);
    },
  });
  return { engine, stateRoot, paths: instancePaths(stateRoot, swarm.workspaceId, plan.name, instanceKey), runtimeEvents, logLines: log.lines };
}

export function readJsonl(file: string): unknown[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** The stored base as an agent loads it: `base.jsonl` with the replacements of `base-edits.jsonl` applied. */
export function baseMessages(paths: InstancePaths): Message[] {
  const messages = readJsonl(paths.baseMessages).filter(isMessageLike);
  for (const edit of readJsonl(paths.baseEdits).filter(isMessageEventLike)) {
    if (edit.type !== 'replace') continue;
    const at = messages.findIndex((message) => message.id === edit.targetId);
    if (at >= 0) messages[at] = edit.message;
  }
  return messages;
}

export function messageEvents(paths: InstancePaths): MessageEvent[] {
  return readJsonl(paths.messageEvents).filter(isMessageEventLike);
}

function isMessageLike(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && 'id' in value && 'data' in value;
}

function isMessageEventLike(value: unknown): value is MessageEvent {
  return typeof value === 'object' && value !== null && 'type' in value;
}

/** The tool results stored in base.jsonl, in order: `{toolCallId, toolName, output}`. */
export function storedToolResults(paths: InstancePaths): Array<{ toolCallId: string; toolName: string; output: unknown }> {
  const out: Array<{ toolCallId: string; toolName: string; output: unknown }> = [];
  for (const message of baseMessages(paths)) {
    if (message.data.role !== 'tool') continue;
    for (const part of message.data.content) {
      if (part.type === 'tool-result') out.push({ toolCallId: part.toolCallId, toolName: part.toolName, output: part.output });
    }
  }
  return out;
}

/** The `error` object of a stored error result (`{type:'json', value:{status:'error', error}}`), if it is one. */
export function errorOf(output: unknown): Record<string, unknown> | undefined {
  if (typeof output !== 'object' || output === null || !('value' in output)) return undefined;
  const value = output.value;
  if (typeof value !== 'object' || value === null || !('status' in value) || value.status !== 'error' || !('error' in value)) return undefined;
  const error = value.error;
  return typeof error === 'object' && error !== null ? Object.fromEntries(Object.entries(error)) : undefined;
}

/**
 * Engines started by one test file, closed (and their state removed) after each test:
 * `const harnesses = trackEngines(); … harnesses.push(await startEngine(…))`.
 */
export function trackEngines(): { push(harness: EngineHarness): number; start(...args: Parameters<typeof startEngine>): Promise<EngineHarness> } {
  const started: EngineHarness[] = [];
  afterEach(async () => {
    for (const h of started.splice(0)) {
      await h.engine.close();
      removeDir(h.stateRoot);
    }
  });
  return {
    push: (harness) => started.push(harness),
    start: async (...args) => {
      const harness = await startEngine(...args);
      started.push(harness);
      return harness;
    },
  };
}

/** An async inter-agent reply as the shell hands it to `engine.deliverAsyncReply`. */
export function asyncReply(text: string, extra: Partial<InterAgentReply> = {}): InterAgentReply {
  const requestId = extra.requestId ?? 'corr_1';
  return {
    kind: 'inter_agent_response',
    version: 1,
    requestId,
    requestEventId: `evt_${requestId}`,
    fromAgentId: 'reviewer',
    toAgentId: 'tester',
    async: true,
    status: 'ok',
    text,
    receivedAt: new Date().toISOString(),
    ...extra,
  };
}
