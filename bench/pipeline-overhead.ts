#!/usr/bin/env bun
/**
 * Bench: per-call cost of the `toolCall` pipeline with 5 pass-through middlewares. Three figures:
 * the bare compose chain (5 middlewares + a no-op core), and one complete tool call through
 * ToolCallRunner (catalog gate, ajv args check, ToolContext, handler, runtime events to a file)
 * with 0 and with 5 middlewares — their difference is what the middlewares add.
 * Prints a table and one JSON line. Not a test: figures only; target < 50 µs per call.
 *   bun bench/pipeline-overhead.ts [calls]
 */
import { DEFAULT_RUNTIME_EVENTS_MAX_BYTES } from '../shared/durability/rotating-log.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { compose } from '../agent-process/engine/compose.ts';
import { PipelineRegistry } from '../agent-process/engine/pipeline-registry.ts';
import { createMessage } from '../agent-process/conversation/message-factory.ts';
import { EventBus } from '../agent-process/extensions/event-bus.ts';
import { RuntimeEventLog } from '../agent-process/observability/runtime-event-log.ts';
import { turnSpan } from '../agent-process/observability/trace-span.ts';
import { buildToolCatalog } from '../agent-process/tools/tool-catalog.ts';
import { ToolCallRunner } from '../agent-process/tools/tool-call-runner.ts';
import { ToolContextFactory } from '../agent-process/tools/tool-context.ts';
import { PendingResults } from '../agent-process/tools/pending-results.ts';
import { ToolExecutor } from '../agent-process/tools/tool-executor.ts';
import { ToolPermissionGate } from '../agent-process/tools/tool-permission-gate.ts';
import { loadToolHandlers } from '../agent-process/tools/tool-loader.ts';
import { ToolRegistry } from '../agent-process/tools/tool-registry.ts';
import { DEFAULT_SANDBOX } from '../shared/config/sandbox-plan.ts';
import type { ToolCallMiddlewareContext } from '../shared/types/extensions.ts';
import type { ToolResult } from '../shared/types/tools.ts';
import { echoTool, userEvent } from '../tests/agent-process/helpers/engine-fixture.ts';
import { fullOrSmoke } from './smoke.ts';

const CALLS = Number(process.argv[2] ?? fullOrSmoke(20000, 1));
const WARMUP = fullOrSmoke(2000, 1);
const MIDDLEWARES = 5;
const silent = pino({ level: 'warn' }, new Writable({ write: (_c, _e, cb) => cb() }));

async function perCall(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await run();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await run();
  return ((performance.now() - started) / CALLS) * 1000;
}

const passThrough = (ctx: ToolCallMiddlewareContext): Promise<ToolResult> => ctx.next();

async function bareCompose(): Promise<number> {
  const chain = compose<ToolCallMiddlewareContext, ToolResult>(
    'toolCall',
    Array.from({ length: MIDDLEWARES }, (_, i) => ({ owner: `ext-${i}`, fn: passThrough })),
  );
  const core = async (ctx: ToolCallMiddlewareContext): Promise<ToolResult> => ({ toolCallId: ctx.toolCallId, toolName: ctx.toolName, status: 'ok', output: null });
  const ctx: ToolCallMiddlewareContext = {
    agentName: 'bench', instanceKey: 'k', turnId: 't', traceId: 'x', stepIndex: 0, toolName: 'echo__say', toolCallId: 'c', args: { text: 'hi' }, metadata: {},
    display: {}, toolVerdict: () => Promise.resolve(undefined),
    next: () => Promise.reject(new Error('core ctx')),
  };
  return perCall(() => chain(ctx, core));
}

async function fullCall(middlewares: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-bench-pipeline-'));
  const registry = new ToolRegistry();
  const tool = echoTool();
  registry.registerToolPlan(tool, await loadToolHandlers(tool));
  const pending = new PendingResults();
  const executor = new ToolExecutor({
    registry,
    contexts: new ToolContextFactory({ workdir: join(dir, 'workspace'), logger: silent, pending, sandbox: { ...DEFAULT_SANDBOX, workdir: join(dir, 'workspace'), stateRoot: dir, hiddenPaths: [] } }),
    pending,
    permissions: new ToolPermissionGate(silent),
    logger: silent,
  });
  const pipeline = new PipelineRegistry();
  for (let i = 0; i < middlewares; i++) pipeline.register(`ext-${i}`, 'toolCall', passThrough);
  const events = new RuntimeEventLog(join(dir, 'runtime-events.jsonl'), { maxBytes: DEFAULT_RUNTIME_EVENTS_MAX_BYTES, maxAgeMs: Number.POSITIVE_INFINITY }, new EventBus(silent), silent);
  const runner = new ToolCallRunner({ agentName: 'bench', instanceKey: 'k', pipeline, executor, registry, events, workdir: () => join(dir, 'workspace'), maxToolResultBytes: 65_536, logger: silent });
  const catalog = buildToolCatalog(registry);
  const message = createMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'echo__say', input: { text: 'hi' } }] }, { type: 'assistant', stepId: 's' });
  const stepSpan = turnSpan(userEvent('x'));
  let n = 0;
  const result = await perCall(() =>
    runner.run({ call: { id: `call_${++n}`, name: 'echo__say', args: { text: 'hi' } }, catalog, message, turnId: 't', stepId: 's', stepIndex: 0, stepSpan }),
  );
  events.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

// Interleaved rounds, best of each: JIT warm-up order otherwise decides which variant looks faster.
const ROUNDS = fullOrSmoke(3, 1);
const best = { bare: Infinity, full0: Infinity, full5: Infinity };
for (let round = 0; round < ROUNDS; round++) {
  best.bare = Math.min(best.bare, await bareCompose());
  best.full0 = Math.min(best.full0, await fullCall(0));
  best.full5 = Math.min(best.full5, await fullCall(MIDDLEWARES));
}
const { bare, full0, full5 } = best;
const rows: Array<[string, number]> = [
  [`compose chain, ${MIDDLEWARES} middlewares + no-op core`, bare],
  ['full tool call, 0 middlewares', full0],
  [`full tool call, ${MIDDLEWARES} middlewares`, full5],
  [`added by ${MIDDLEWARES} middlewares (full5 − full0; noise ±1)`, full5 - full0],
];
console.log(`toolCall pipeline, ${CALLS} calls after ${WARMUP} warm-up, best of ${ROUNDS} interleaved rounds (µs per call)`);
for (const [label, us] of rows) console.log(`${label.padEnd(54)} ${us.toFixed(2).padStart(8)}`);
console.log(`target: full tool call with ${MIDDLEWARES} middlewares < 50 µs → ${full5 < 50 ? 'met' : 'NOT met'}`);
console.log(
  JSON.stringify({ bench: 'pipeline-overhead', unit: 'us_per_call', middlewares: MIDDLEWARES, calls: CALLS, bareCompose: bare, fullCall0: full0, fullCall5: full5, addedByMiddlewares: full5 - full0, targetUs: 50 }),
);
