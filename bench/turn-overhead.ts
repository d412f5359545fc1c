#!/usr/bin/env bun
/**
 * Bench: per-turn core overhead of the agent engine with the `mock` model (latency 0), excluding
 * the model call (AI SDK generateText + the mock, measured per step as `modelDuration`). Two
 * scenarios: a text reply (1 step) and one tool call (2 steps). State is written to a temp dir as
 * in production (events.jsonl, fold into base.jsonl, runtime-events.jsonl, metadata.json).
 * Prints a table and one JSON line. Not a test: figures only; target < 1 ms median.
 *   bun bench/turn-overhead.ts [turns]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createAgentEngine } from '../agent-process/engine/agent-engine.ts';
import type { AgentPlan } from '../shared/types/bundle.ts';
import type { RuntimeEvent } from '../shared/types/turns.ts';
import { echoTool, makePlan, makeSwarm, userEvent } from '../tests/agent-process/helpers/engine-fixture.ts';
import { fullOrSmoke } from './smoke.ts';
import { percentile } from './stats.ts';

const TURNS = Number(process.argv[2] ?? fullOrSmoke(300, 1));
const WARMUP = fullOrSmoke(30, 1);

interface Figures {
  scenario: string;
  turns: number;
  steps: number;
  totalP50: number;
  modelP50: number;
  coreP50: number;
  coreP95: number;
  coreMean: number;
}

async function measure(scenario: string, plan: AgentPlan, input: string): Promise<Figures> {
  const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-bench-turn-'));
  let modelMs = 0;
  let steps = 0;
  const engine = await createAgentEngine({
    plan,
    swarm: makeSwarm([plan.name]),
    instanceKey: 'bench',
    stateRoot,
    logger: pino({ level: 'warn' }, new Writable({ write: (_c, _e, cb) => cb() })),
    onRuntimeEvent: (event: RuntimeEvent) => {
      if (event.type === 'step.completed') {
        modelMs += event.modelDuration ?? 0;
        steps++;
      }
    },
  });
  const totals: number[] = [];
  const models: number[] = [];
  const cores: number[] = [];
  for (let i = 0; i < WARMUP + TURNS; i++) {
    modelMs = 0;
    steps = 0;
    const started = performance.now();
    const result = await engine.runTurn(userEvent(input));
    const total = performance.now() - started;
    if (result.finishReason !== 'text_response') throw new Error(`bench turn failed: ${result.error?.message}`);
    if (i < WARMUP) continue;
    totals.push(total);
    models.push(modelMs);
    cores.push(total - modelMs);
  }
  await engine.close();
  rmSync(stateRoot, { recursive: true, force: true });
  return {
    scenario,
    turns: TURNS,
    steps,
    totalP50: percentile(totals, 50),
    modelP50: percentile(models, 50),
    coreP50: percentile(cores, 50),
    coreP95: percentile(cores, 95),
    coreMean: cores.reduce((a, b) => a + b, 0) / cores.length,
  };
}


const results = [
  await measure('text reply (no tools)', makePlan({ systemPrompt: 'Bench agent.', script: { latencyMs: 0 } }), 'hello'),
  await measure(
    'one tool call',
    makePlan({
      systemPrompt: 'Bench agent.',
      tools: [echoTool()],
      script: { latencyMs: 0, rules: [{ match: 'say', toolCalls: [{ name: 'echo__say', args: { text: 'bench' } }], then: 'done: {{result}}' }] },
    }),
    'say it',
  ),
];

const ms = (n: number) => n.toFixed(3).padStart(9);
console.log(`turn overhead, ${TURNS} turns per scenario after ${WARMUP} warm-up (ms; core = turn − model call)`);
console.log('scenario                 steps  total p50  model p50   core p50   core p95  core mean');
for (const r of results) console.log(`${r.scenario.padEnd(24)} ${String(r.steps).padStart(5)} ${ms(r.totalP50)}  ${ms(r.modelP50)}  ${ms(r.coreP50)}  ${ms(r.coreP95)}  ${ms(r.coreMean)}`);
const worst = Math.max(...results.map((r) => r.coreP50));
console.log(`target: core p50 < 1 ms → ${worst < 1 ? 'met' : 'NOT met'} (worst ${worst.toFixed(3)} ms)`);
console.log(JSON.stringify({ bench: 'turn-overhead', unit: 'ms', targetCoreP50Ms: 1, results }));
