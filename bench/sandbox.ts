#!/usr/bin/env bun
/**
 * Bench: per-call cost of the sandbox (issue 9). `bash__exec` running `true` through the real
 * handler, unsandboxed (mode none: the floor) and inside bubblewrap (network off, the default, and
 * on), plus a bare `Bun.spawn(['/bin/sh', '-c', 'true'])` for scale. Rounds are interleaved so
 * machine load hits every variant alike. Prints p50/p99 per call, the ratio to the floor, and
 * one JSON line. Not a test: figures only.   bun bench/sandbox.ts [calls per round]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailability } from '../bundles/base/sandbox/bwrap-availability.ts';
import { handlers } from '../bundles/base/tools/bash/index.ts';
import { DEFAULT_SANDBOX } from '../shared/config/sandbox-plan.ts';
import { consoleCompatibleLogger, type PinoLike } from '../agent-process/tools/tool-logger.ts';
import type { SandboxPlan, ToolContext } from '../shared/types/index.ts';
import { fullOrSmoke } from './smoke.ts';
import { percentile } from './stats.ts';

const CALLS = Number(process.argv[2] ?? fullOrSmoke(60, 1));
const ROUNDS = fullOrSmoke(5, 1);
const WARMUP = fullOrSmoke(5, 1);

const bwrap = bwrapAvailability();
if (!bwrap.ok) {
  console.error(`bench/sandbox.ts needs a working bubblewrap: ${bwrap.reason}`);
  process.exit(1);
}

const root = mkdtempSync(join(tmpdir(), 'goondan-bench-sandbox-'));
const workdir = join(root, 'workspace');
mkdirSync(workdir);
const quiet: PinoLike = { debug: () => {}, info: () => {}, warn: (o) => console.error(o), error: (o) => console.error(o) };
const exec = handlers.exec;
if (exec === undefined) throw new Error('bash has no exec handler');

function context(sandbox: Partial<SandboxPlan>): ToolContext {
  return {
    agentName: 'bench',
    instanceKey: 'k',
    turnId: 't',
    toolCallId: 'c',
    message: { id: 'm', data: { role: 'assistant', content: [] }, metadata: {}, createdAt: new Date().toISOString(), source: { type: 'assistant', stepId: 's' } },
    workdir,
    logger: consoleCompatibleLogger(quiet),
    config: { drainMs: 0 },
    sandbox: { ...DEFAULT_SANDBOX, ...sandbox, workdir, stateRoot: root, hiddenPaths: [] },
    pending: () => {
      throw new Error('bash never answers pending');
    },
  };
}

interface Variant {
  label: string;
  call(): Promise<unknown>;
  samples: number[];
}

const variant = (label: string, call: () => Promise<unknown>): Variant => ({ label, call, samples: [] });
const viaTool = (sandbox: Partial<SandboxPlan>) => {
  const ctx = context(sandbox);
  return () => Promise.resolve(exec(ctx, { command: 'true' }));
};
const variants = [
  variant('Bun.spawn sh -c true (no tool)', () => Bun.spawn(['/bin/sh', '-c', 'true'], { stdout: 'ignore', stderr: 'ignore' }).exited),
  variant('bash__exec true, mode none (floor)', viaTool({ mode: 'none' })),
  variant('bash__exec true, bwrap, network off', viaTool({ mode: 'bwrap' })),
  variant('bash__exec true, bwrap, network on', viaTool({ mode: 'bwrap', network: true })),
];

try {
  for (const v of variants) for (let i = 0; i < WARMUP; i++) await v.call();
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of variants) {
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        await v.call();
        v.samples.push(performance.now() - started);
      }
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const [spawn, none, boxed, boxedNet] = variants.map((v) => ({ p50: percentile(v.samples, 50), p99: percentile(v.samples, 99) }));
if (!spawn || !none || !boxed || !boxedNet) throw new Error('missing variant');

console.log(`bash__exec "true": ${CALLS * ROUNDS} calls per variant in ${ROUNDS} interleaved rounds (ms per call)`);
console.log(`${'variant'.padEnd(40)} ${'p50'.padStart(7)} ${'p99'.padStart(7)}  ratio p50 to floor`);
variants.forEach((v, i) => {
  const figures = [spawn, none, boxed, boxedNet][i] ?? spawn;
  console.log(`${v.label.padEnd(40)} ${figures.p50.toFixed(2).padStart(7)} ${figures.p99.toFixed(2).padStart(7)}  ${(figures.p50 / none.p50).toFixed(2)}×`);
});
console.log(
  JSON.stringify({
    bench: 'sandbox',
    unit: 'ms_per_call',
    calls: CALLS * ROUNDS,
    bareSpawnP50: spawn.p50,
    noneP50: none.p50,
    noneP99: none.p99,
    bwrapP50: boxed.p50,
    bwrapP99: boxed.p99,
    bwrapNetworkP50: boxedNet.p50,
    bwrapNetworkP99: boxedNet.p99,
    bwrapRatioP50: boxed.p50 / none.p50,
    bwrapRatioP99: boxed.p99 / none.p99,
  }),
);
process.exit(0);
