/**
 * The A→B→A rows of bench/daemon.ts: the caller's `agents__request` tool duration through the real
 * daemon (mock model), in short conversations of new pairs and for one long-lived pair, against
 * the same four IPC hops between bare Bun children paced alike (bench/ipc-relay-floor.ts).
 */
import { Orchestrator } from '../orchestrator/daemon/orchestrator.ts';
import type { RootLogger } from '../shared/logger.ts';
import type { StreamedEvent } from '../shared/types/turns.ts';
import { ipcRelayFloor, type RelayFloor } from './ipc-relay-floor.ts';
import { fullOrSmoke } from './smoke.ts';
import { median, percentile } from './stats.ts';

/** Short conversations, each a new pair: its first request, then this many measured. */
const CONVERSATIONS = fullOrSmoke(6, 1);
const CONVERSATION_REQUESTS = fullOrSmoke(10, 2);
/** Before each conversation: the warm pool refills and the processes fall asleep. */
const CONVERSATION_PAUSE_MS = fullOrSmoke(500, 20);
/** A long-lived pair: exchanges before its measured ones (its hot paths JIT-compiled by then), and those measured back to back. */
export const LONG_PAIR_WARMUP = fullOrSmoke(1000, 2);
const LONG_PAIR_MEASURED = fullOrSmoke(300, 2);

export interface InterAgentBench {
  stateRoot: string;
  /** Its `alpha` answers `ask beta <text>` by asking `beta` (tests/fixtures/e2e/swarm). */
  bundlePath: string;
  logger: RootLogger;
}

export interface InterAgentRoundTrips {
  medianMs: number;
  p95Ms: number;
  firstMs: number;
  restMs: number;
  newPairMs: number;
  calleeTurnMs: number;
  /** One pair that has exchanged LONG_PAIR_WARMUP requests, back to back. */
  longPairMs: number;
  /** The relay paced as the conversations, and back to back as the long-lived pair. */
  relay: RelayFloor;
  steadyRelay: RelayFloor;
}

export async function interAgentRoundTrips(bench: InterAgentBench): Promise<InterAgentRoundTrips> {
  const orchestrator = new Orchestrator({
    bundlePath: bench.bundlePath,
    stateRoot: bench.stateRoot,
    host: '127.0.0.1',
    port: 0,
    watch: false,
    processEnv: process.env,
    logger: bench.logger,
    childOutput: 'inherit',
    interactive: false,
  });
  await orchestrator.start();
  const durations: number[] = [];
  const calleeTurns: number[] = [];
  orchestrator.runtimeEvents.subscribe((event: StreamedEvent) => {
    if (event.type === 'tool.completed' && event.toolName === 'agents__request' && event.agentName === 'alpha') durations.push(event.duration);
    if (event.type === 'turn.completed' && event.agentName === 'beta') calleeTurns.push(event.duration);
  });
  /** One A→B→A on `instanceKey`; its duration, when alpha's tool call reported one. */
  const ask = async (instanceKey: string, i: number): Promise<number | undefined> => {
    const before = durations.length;
    await orchestrator.submit({ agent: 'alpha', instanceKey, input: `ask beta ping ${i}`, source: { kind: 'api', name: 'bench' }, wait: true }).reply;
    return durations.length > before ? durations[durations.length - 1] : undefined;
  };
  // Short conversations (a fresh pair for each; its first request, which starts both
  // instances, is reported apart), as most are: this measures routing and the early turns of an
  // instance, not history length (bench/model-call.ts does).
  const newPair: number[] = [];
  const measured: number[] = [];
  // The first measured request of a conversation comes after a pause (cold caches, sleeping
  // processes); the rest come back to back.
  const first: number[] = [];
  const rest: number[] = [];
  for (let batch = 0; batch < CONVERSATIONS; batch++) {
    for (let i = 0; i <= CONVERSATION_REQUESTS; i++) {
      const duration = await ask(`rt-${batch}`, i);
      if (i === 0 && duration !== undefined) newPair.push(duration);
      if (i > 0 && duration !== undefined) {
        measured.push(duration);
        (i === 1 ? first : rest).push(duration);
      }
      // Let the warm pool refill after the spawning request, as it would between conversations.
      if (i === 0) await Bun.sleep(CONVERSATION_PAUSE_MS);
    }
  }
  // A pair that talks for long (a busy agent and its helper): what A→B→A costs once its code is warm.
  for (let i = 0; i < LONG_PAIR_WARMUP; i++) await ask('rt-long', i);
  const longPair: number[] = [];
  for (let i = 0; i < LONG_PAIR_MEASURED; i++) {
    const duration = await ask('rt-long', LONG_PAIR_WARMUP + i);
    if (duration !== undefined) longPair.push(duration);
  }
  await orchestrator.stop();
  // Its requests come ~1 ms apart within a conversation: the rest of A's turn and the next submission.
  const relay = await ipcRelayFloor({ batches: CONVERSATIONS, perBatch: CONVERSATION_REQUESTS, pauseMs: CONVERSATION_PAUSE_MS, gapMs: 1 });
  const steadyRelay = await ipcRelayFloor({ batches: 1, perBatch: LONG_PAIR_MEASURED, pauseMs: 0, gapMs: 0 });
  return {
    medianMs: median(measured),
    p95Ms: percentile(measured, 95),
    firstMs: median(first),
    restMs: median(rest),
    newPairMs: median(newPair),
    calleeTurnMs: median(calleeTurns),
    longPairMs: median(longPair),
    relay,
    steadyRelay,
  };
}
