#!/usr/bin/env bun
/**
 * Bench: what durable execution costs (issue 10). One turn with one tool call (2 steps, the
 * tool-call journal written around the handler, events.jsonl, the fold into base.jsonl) run by
 * the agent engine with the `mock` model (latency 0), under each `policy.durability.fsync` mode.
 * Reported as ratios to `never` (page cache only) measured in the same run, on the same disk.
 * Not a test: figures only.
 *   bun bench/durability.ts [turns]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createAgentEngine } from '../agent-process/engine/agent-engine.ts';
import type { FsyncMode } from '../shared/durability/fsync-policy.ts';
import { fullOrSmoke } from './smoke.ts';
import { echoTool, makePlan, makeSwarm, userEvent } from '../tests/agent-process/helpers/engine-fixture.ts';

const TURNS = Number(process.argv[2] ?? fullOrSmoke(200, 1));
const WARMUP = fullOrSmoke(10, 1);

const plan = makePlan({
  systemPrompt: 'Bench agent.',
  tools: [echoTool()],
  script: { latencyMs: 0, rules: [{ match: 'say', toolCalls: [{ name: 'echo__say', args: { text: 'bench' } }], then: 'done: {{result}}' }] },
});

async function measure(fsync: FsyncMode, turns: number): Promise<number[]> {
  const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-bench-journal-'));
  const engine = await createAgentEngine({
    plan,
    swarm: { ...makeSwarm([plan.name]), durability: { ...makeSwarm([plan.name]).durability, fsync } },
    instanceKey: 'bench',
    stateRoot,
    logger: pino({ level: 'warn' }, new Writable({ write: (_c, _e, cb) => cb() })),
  });
  const times: number[] = [];
  for (let i = 0; i < WARMUP + turns; i++) {
    const started = performance.now();
    const result = await engine.runTurn(userEvent('say it'));
    if (result.finishReason !== 'text_response') throw new Error(`bench turn failed: ${result.error?.message}`);
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  await engine.close();
  rmSync(stateRoot, { recursive: true, force: true });
  return times;
}

function summary(fsync: FsyncMode, times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return { fsync, p50: at(50), p95: at(95), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

// Modes take turns in rounds so that a load spike on the machine hits all of them alike.
const ROUNDS = fullOrSmoke(5, 1);
const MODES: FsyncMode[] = ['never', 'batch', 'always'];
const times = new Map<FsyncMode, number[]>(MODES.map((mode) => [mode, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) times.get(mode)?.push(...(await measure(mode, Math.ceil(TURNS / ROUNDS))));
}
const [never, ...others] = MODES.map((mode) => summary(mode, times.get(mode) ?? []));
if (!never) throw new Error('no figures');
const results = [never, ...others].map((r) => ({ ...r, ratioP50: r.p50 / never.p50, ratioMean: r.mean / never.mean }));

const ms = (n: number) => n.toFixed(3).padStart(9);
console.log(`journaling cost: one turn with one tool call, ${TURNS} turns per mode in ${ROUNDS} interleaved rounds (each after ${WARMUP} warm-up) (ms; ratio to fsync: never)`);
console.log('fsync     p50        p95        mean       ratio p50  ratio mean');
for (const r of results) console.log(`${r.fsync.padEnd(8)} ${ms(r.p50)}  ${ms(r.p95)}  ${ms(r.mean)}  ${r.ratioP50.toFixed(2).padStart(9)}  ${r.ratioMean.toFixed(2).padStart(9)}`);
console.log(JSON.stringify({ bench: 'durability', unit: 'ms', floor: 'fsync: never', results }));
