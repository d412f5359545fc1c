#!/usr/bin/env bun
/**
 * Bench: what the engine adds to a model call as the conversation grows, against the floor of the
 * same mock model's doStream called directly with a ready prompt of the same length, measured in
 * the same run:
 *   call overhead   = the step's model call (doStream + reading the stream) − direct doStream
 *   engine's own    = the whole turn − its model call: prompt building, appends, fold, events
 *                                                                  target: both flat in history length
 *   prompt per event  the whole turn when context-message names each event in the system prompt
 *                   (`includeInbound`, as a chat bot's): the prompt is replaced every turn
 * (The mock reads only what its previous call had not seen (models/mock/mock-prompt.ts); until
 * 2026-11-28 it read the whole prompt on every call, ~0.5 ms at 5,000 messages. A real provider
 * serialises the whole prompt per call: the engine's share is measured beside the model, not through it.)
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
import type { ExtensionPlan } from '../shared/types/bundle.ts';
import type { RuntimeEvent } from '../shared/types/turns.ts';
import { makePlan, makeSwarm, userEvent } from '../tests/agent-process/helpers/engine-fixture.ts';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

/** History lengths (messages) at which calls are sampled; each turn adds a user and an assistant message. */
const CHECKPOINTS = fullOrSmoke([10, 100, 1000, 5000], [10, 20]);
/** Calls sampled around each checkpoint. */
const SAMPLES = fullOrSmoke(15, 1);
/** Direct calls at each checkpoint before those sampled. */
const DIRECT_WARMUP = fullOrSmoke(5, 1);
const SCRIPT = { latencyMs: 0 };


interface EngineFigures {
  /** The step's model call (its `modelDuration`). */
  callMs: number;
  /** The whole turn, as its caller waits for it. */
  turnMs: number;
}

/** context-message as every agent has it (implicit, default config): the prompt stays as it is. */
const DEFAULT_PROMPT: ExtensionPlan = {
  name: 'context-message',
  packageName: '@goondan/base',
  entryPath: join(import.meta.dir, '../bundles/base/extensions/context-message/index.ts'),
  config: {},
};
/** context-message naming each event in the system prompt, so the prompt is replaced every turn (a chat connector's bot). */
const INBOUND_PROMPT: ExtensionPlan = { ...DEFAULT_PROMPT, config: { includeInbound: true, includeCall: false } };

async function engineCalls(extensions: ExtensionPlan[] = []): Promise<Map<number, EngineFigures>> {
  const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-bench-model-'));
  let lastModelMs = 0;
  const engine = await createAgentEngine({
    plan: makePlan({ systemPrompt: 'Bench agent.', script: SCRIPT, extensions }),
    swarm: makeSwarm(['tester']),
    instanceKey: 'bench',
    stateRoot,
    logger: pino({ level: 'warn' }, new Writable({ write: (_c, _e, cb) => cb() })),
    onRuntimeEvent: (event: RuntimeEvent) => {
      if (event.type === 'step.completed') lastModelMs = event.modelDuration ?? Number.NaN;
    },
  });
  const calls = new Map<number, number[]>(CHECKPOINTS.map((c) => [c, []]));
  const turns = new Map<number, number[]>(CHECKPOINTS.map((c) => [c, []]));
  const lastTurn = (Math.max(...CHECKPOINTS) + SAMPLES) / 2;
  for (let turn = 0; turn < lastTurn; turn++) {
    const history = turn * 2;
    const started = performance.now();
    await engine.runTurn(userEvent(`message ${turn} with a few words of text in it`));
    const turnMs = performance.now() - started;
    for (const checkpoint of CHECKPOINTS) {
      if (history < checkpoint || history >= checkpoint + SAMPLES * 2) continue;
      calls.get(checkpoint)?.push(lastModelMs);
      turns.get(checkpoint)?.push(turnMs);
    }
  }
  await engine.close();
  rmSync(stateRoot, { recursive: true, force: true });
  return new Map(CHECKPOINTS.map((c) => [c, { callMs: median(calls.get(c) ?? []), turnMs: median(turns.get(c) ?? []) }]));
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
    for (let i = 0; i < SAMPLES + DIRECT_WARMUP; i++) {
      const started = performance.now();
      const { stream } = await model.doStream({ prompt });
      await readModelStream(stream);
      if (i >= DIRECT_WARMUP) times.push(performance.now() - started);
    }
    result.set(checkpoint, median(times));
  }
  return result;
}

const direct = await directCalls();
const engine = await engineCalls();
const withPrompt = await engineCalls([DEFAULT_PROMPT]);
const inbound = await engineCalls([INBOUND_PROMPT]);
const floorAt = (c: number) => direct.get(c) ?? Number.NaN;
const callOverheadAt = (c: number) => (engine.get(c)?.callMs ?? Number.NaN) - floorAt(c);
const engineOwnAt = (c: number) => (engine.get(c)?.turnMs ?? Number.NaN) - (engine.get(c)?.callMs ?? Number.NaN);
const firstEngineOwn = engineOwnAt(CHECKPOINTS[0] ?? 10);
const ms = (n: number, width: number) => n.toFixed(3).padStart(width);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; medians of ${SAMPLES} turns (ms)`);
console.log("history  direct doStream  model call  call overhead  turn    engine's own  engine's own vs 10 messages  turn, context-message  turn, prompt per event");
for (const c of CHECKPOINTS) {
  const figures = engine.get(c);
  console.log(
    `${String(c).padStart(7)}  ${ms(floorAt(c), 15)}  ${ms(figures?.callMs ?? 0, 10)}  ${ms(callOverheadAt(c), 13)}  ${ms(figures?.turnMs ?? 0, 5)}  ${ms(engineOwnAt(c), 12)}  ${(engineOwnAt(c) / firstEngineOwn).toFixed(2).padStart(6)}×                      ${ms(withPrompt.get(c)?.turnMs ?? 0, 21)}  ${ms(inbound.get(c)?.turnMs ?? 0, 22)}`,
  );
}
console.log(
  JSON.stringify({
    bench: 'model-call',
    loadAverage: loadavg(),
    results: CHECKPOINTS.map((c) => ({
      history: c,
      directDoStreamMs: floorAt(c),
      engineCallMs: engine.get(c)?.callMs,
      callOverheadMs: callOverheadAt(c),
      turnMs: engine.get(c)?.turnMs,
      engineOwnMs: engineOwnAt(c),
      contextMessageTurnMs: withPrompt.get(c)?.turnMs,
      promptPerEventTurnMs: inbound.get(c)?.turnMs,
    })),
  }),
);
