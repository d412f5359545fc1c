#!/usr/bin/env bun
/**
 * Bench: the cost of one model call as the engine makes it (prompt conversion, doStream, reading
 * the stream) as the conversation grows, against the floor of the same mock model's doStream
 * called directly with a ready prompt of the same length, measured in the same run.
 *   overhead = engine's model call − direct doStream           target: flat in history length
 * (The AI SDK's generateText re-validated the whole history on every call: ~0.7 ms short, ~18 ms
 * at 600 messages.) Prints a table and one JSON line. Not a test: figures only.
 *   bun bench/model-call.ts
 */
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createAgentEngine } from '../agent-process/engine/agent-engine.ts';
import { createMockLanguageModel } from '../agent-process/models/mock/mock-language-model.ts';
import { readModelStream } from '../agent-process/models/read-model-stream.ts';
import type { RuntimeEvent } from '../shared/types/turns.ts';
import { makePlan, makeSwarm, userEvent } from '../tests/agent-process/helpers/engine-fixture.ts';
import { median } from './stats.ts';

/** History lengths (messages) at which calls are sampled; each turn adds a user and an assistant message. */
const CHECKPOINTS = [10, 100, 300, 600];
/** Calls sampled around each checkpoint. */
const SAMPLES = 15;
const SCRIPT = { latencyMs: 0 };


async function engineCalls(): Promise<Map<number, number>> {
  const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-bench-model-'));
  let lastModelMs = 0;
  const engine = await createAgentEngine({
    plan: makePlan({ systemPrompt: 'Bench agent.', script: SCRIPT }),
    swarm: makeSwarm(['tester']),
    instanceKey: 'bench',
    stateRoot,
    logger: pino({ level: 'warn' }, new Writable({ write: (_c, _e, cb) => cb() })),
    onRuntimeEvent: (event: RuntimeEvent) => {
      if (event.type === 'step.completed') lastModelMs = event.modelDuration ?? Number.NaN;
    },
  });
  const byCheckpoint = new Map<number, number[]>(CHECKPOINTS.map((c) => [c, []]));
  const lastTurn = (Math.max(...CHECKPOINTS) + SAMPLES) / 2;
  for (let turn = 0; turn < lastTurn; turn++) {
    const history = turn * 2;
    await engine.runTurn(userEvent(`message ${turn} with a few words of text in it`));
    for (const checkpoint of CHECKPOINTS) if (history >= checkpoint && history < checkpoint + SAMPLES * 2) byCheckpoint.get(checkpoint)?.push(lastModelMs);
  }
  await engine.close();
  rmSync(stateRoot, { recursive: true, force: true });
  return new Map([...byCheckpoint].map(([c, xs]) => [c, median(xs)]));
}

function promptOf(messages: number): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [{ role: 'system', content: 'Bench agent.' }];
  for (let i = 0; prompt.length < messages; i++) {
    prompt.push({ role: 'user', content: [{ type: 'text', text: `message ${i} with a few words of text in it` }] });
    prompt.push({ role: 'assistant', content: [{ type: 'text', text: `tester got: message ${i} with a few words of text in it` }] });
  }
  return prompt;
}

async function directCalls(): Promise<Map<number, number>> {
  const model = createMockLanguageModel({ modelName: 'mock', modelId: 'scripted', agentName: 'tester', options: SCRIPT });
  const result = new Map<number, number>();
  for (const checkpoint of CHECKPOINTS) {
    const prompt = promptOf(checkpoint);
    const times: number[] = [];
    for (let i = 0; i < SAMPLES + 5; i++) {
      const started = performance.now();
      const { stream } = await model.doStream({ prompt });
      await readModelStream(stream);
      if (i >= 5) times.push(performance.now() - started);
    }
    result.set(checkpoint, median(times));
  }
  return result;
}

const direct = await directCalls();
const engine = await engineCalls();
const overheadAt = (c: number) => (engine.get(c) ?? Number.NaN) - (direct.get(c) ?? Number.NaN);
const first = overheadAt(CHECKPOINTS[0] ?? 10);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; medians of ${SAMPLES} calls (ms)`);
console.log('history  engine call  direct doStream  overhead  overhead vs 10 messages');
for (const c of CHECKPOINTS) {
  console.log(
    `${String(c).padStart(7)}  ${(engine.get(c) ?? 0).toFixed(3).padStart(11)}  ${(direct.get(c) ?? 0).toFixed(3).padStart(15)}  ${overheadAt(c).toFixed(3).padStart(8)}  ${(overheadAt(c) / first).toFixed(2).padStart(6)}×`,
  );
}
console.log(
  JSON.stringify({
    bench: 'model-call',
    loadAverage: loadavg(),
    results: CHECKPOINTS.map((c) => ({ history: c, engineCallMs: engine.get(c), directDoStreamMs: direct.get(c), overheadMs: overheadAt(c) })),
  }),
);
