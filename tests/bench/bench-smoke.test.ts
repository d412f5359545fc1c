/**
 * Every bench in bench/ still runs: each one, as `bun bench/NAME.ts` in smoke mode (bench/smoke.ts),
 * exits 0 and prints its JSON line with finite figures. No other test runs the benches, so before
 * this they broke unseen (a routing bench hung for a whole round after a policy default changed).
 * Figures are not judged: a smoke run's are meaningless. Benches that need nats-server, bubblewrap
 * or Chromium use the real ones, installed here when missing or failing the test saying so.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureChromium } from '../e2e/browser-harness.ts';
import { requireNatsServer } from '../helpers/nats-server.ts';
import { requireBwrap } from '../helpers/require-bwrap.ts';
import { benchJsonLine, figureProblems } from './bench-json-line.ts';
import { type BenchRun, DRAIN_AFTER_EXIT_MS, runBench } from './run-bench.ts';

const BENCH_DIR = join(import.meta.dir, '../../bench');
/** Smoke runs take seconds; this only has to tell a hung bench from one slowed by a loaded machine. */
const BENCH_TIMEOUT_MS = 90_000;
/** Beyond a bench's own timeout: killing it and waiting for its output to close. */
const TEST_MARGIN_MS = 30_000;
/** Entries in bench/ that are not benches. */
const NOT_BENCHES = new Set(['run-all']);

interface SmokeBench {
  /** bench/NAME.ts; its JSON line's `bench` field. */
  name: string;
  /** Fields of the JSON line (dotted paths, array indexes as numbers) that must be finite numbers. */
  figures: string[];
  /** A system program it drives: installed when missing, else the test fails saying what to install. */
  requires?: () => void;
  timeoutMs?: number;
}

const BENCHES: SmokeBench[] = [
  { name: 'cli', figures: ['bunStartMs', 'helpMs', 'helpRatio', 'validateMs', 'validateRatio'] },
  { name: 'config-load', figures: ['resources', 'coldMs', 'medianMs', 'moduleCheckMedianMs', 'moduleCheckShare'] },
  { name: 'turn-overhead', figures: ['results.0.coreP50', 'results.0.modelP50', 'results.1.coreP50', 'results.1.steps'] },
  { name: 'model-call', figures: ['results.0.engineOwnMs', 'results.0.callOverheadMs', 'results.0.contextMessageTurnMs', 'results.0.promptPerEventTurnMs', 'results.1.engineOwnMs'] },
  { name: 'durability', figures: ['results.0.p50', 'results.1.ratioP50', 'results.2.ratioP50'] },
  { name: 'pipeline-overhead', figures: ['bareCompose', 'fullCall0', 'fullCall5', 'addedByMiddlewares'] },
  { name: 'policy-parse', figures: ['parserLoadMs', 'regexFloorP50', 'parseP50', 'evaluateP50', 'ratioToFloorP50'] },
  {
    name: 'daemon',
    figures: [
      'spawnReadyWarmMs',
      'spawnReadyColdMs',
      'bareSpawnMs',
      'idleRssBytes',
      'idleAfterTurnRssBytes',
      'httpReplyWarmMs',
      'httpReplyWarmNoFsyncMs',
      'fsyncFloorMs',
      'httpReplyNewKeyMs',
      'httpReplyNewKeyToolMs',
      'httpReplyFastNewKeyMs',
      'newInstanceCpuMs',
      'interAgentRequestMedianMs',
      'interAgentRequestNewPairMs',
      'interAgentRequestLongPairMs',
      'rawRelayRoundTripMs',
      'routedEventsPerSec',
      'rawRelayEventsPerSec',
      'routedManyEventsPerSec',
      'rawRelayManyEventsPerSec',
    ],
  },
  { name: 'agent-rss', figures: ['bareRssBytes', 'spareRssBytes', 'rehearsedSpareRssBytes', 'afterTurnRssBytes', 'afterTurnRssRatio', 'afterTurnPrivateBytes'] },
  { name: 'capacity', figures: ['peakLive', 'peakTreeRssBytes', 'floorSpawnMs', 'newP50Ms', 'warmP50Ms', 'passivatedP50Ms', 'lost'] },
  { name: 'sandbox', requires: requireBwrap, figures: ['bareSpawnP50', 'noneP50', 'bwrapP50', 'bwrapNetworkP50', 'bwrapRatioP50'] },
  { name: 'studio-first-paint', requires: ensureChromium, figures: ['firstPaintMs', 'floorFirstPaintMs', 'paintRatio', 'swarmViewReadyMs', 'pageWeightBytes'] },
  {
    name: 'cluster',
    requires: requireNatsServer,
    // Six daemon starts, a takeover and a NATS restart: the longest smoke run, and the slowest under load.
    timeoutMs: 180_000,
    figures: [
      'local.eventsPerSec',
      'local.latencyMedianMs',
      'local.toolMedianMs',
      'natsOneNode.eventsPerSec',
      'natsThreeNodes.eventsPerSec',
      'natsThreeNodes.toolMedianMs',
      'throughputRatioThreeNodes',
      'latencyRatioThreeNodes',
      'takeover.0.medianMs',
      'natsRestart.medianSettleMs',
    ],
  },
];

/** bench/*.ts run as programs (a `#!/usr/bin/env bun` line), by name; helper modules have none. */
function benchEntries(): string[] {
  return readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith('.ts') && readFileSync(join(BENCH_DIR, file), 'utf8').startsWith('#!'))
    .map((file) => file.slice(0, -'.ts'.length))
    .filter((name) => !NOT_BENCHES.has(name))
    .sort();
}

/** What a failed run said last: enough to see why without rerunning it. */
function describeRun(name: string, run: BenchRun): string {
  const tail = (text: string) => text.trimEnd().split('\n').slice(-30).join('\n');
  const ending = run.timedOut
    ? `did not finish within ${(run.ms / 1000).toFixed(0)} s and was killed (hung?), with what it was running:\n${run.killed.join('\n')}`
    : `exited ${run.exitCode ?? run.signal} after ${(run.ms / 1000).toFixed(1)} s`;
  return `bench/${name}.ts ${ending}\n--- stderr (last lines)\n${tail(run.stderr)}\n--- stdout (last lines)\n${tail(run.stdout)}`;
}

const timeoutOf = (bench: SmokeBench): number => bench.timeoutMs ?? BENCH_TIMEOUT_MS;

// One after the other: run beside the others, the cluster bench (a core's worth of CPU) made the
// whole file no faster on this 2-core machine, only each bench slower.
describe('every bench runs in smoke mode', () => {
  test('the list here names every bench in bench/, so a new bench can’t go untested', () => {
    expect(BENCHES.map((bench) => bench.name).sort()).toEqual(benchEntries());
  });

  for (const bench of BENCHES) {
    test(
      `bench/${bench.name}.ts exits 0 and prints its JSON line with finite figures`,
      async () => {
        bench.requires?.();
        const run = await runBench(bench.name, timeoutOf(bench));
        process.stderr.write(`bench/${bench.name}.ts smoke run: ${(run.ms / 1000).toFixed(1)} s\n`);
        if (run.timedOut || run.exitCode !== 0) throw new Error(describeRun(bench.name, run));
        if (run.outputHeldOpen) throw new Error(`bench/${bench.name}.ts exited but a process it started still held its output open ${DRAIN_AFTER_EXIT_MS / 1000} s later (left running)`);
        const figures = benchJsonLine(run.stdout);
        if (figures === undefined) throw new Error(`bench/${bench.name}.ts did not end with its JSON line: ${describeRun(bench.name, run)}`);
        expect(figures.bench).toBe(bench.name);
        expect(figureProblems(figures, bench.figures), `bench/${bench.name}.ts's JSON line`).toEqual([]);
      },
      timeoutOf(bench) + TEST_MARGIN_MS,
    );
  }
});
