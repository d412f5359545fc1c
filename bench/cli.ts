#!/usr/bin/env bun
/**
 * Bench: the `goondan` CLI as whole processes (fork, exec, Bun start, imports, work, exit), each
 * against a bare `bun -e 0` measured in the same run, interleaved, medians of ROUNDS runs:
 *   goondan --help                      target ≤ 50 ms (on an idle machine)
 *   goondan validate <small bundle>     target ≤ 250 ms
 * The machine may be shared and loaded: the ratio to the floor is the figure to compare.
 * Prints a table and one JSON line. Not a test: figures only.   bun bench/cli.ts [rounds]
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

const ROUNDS = Number(process.argv[2] ?? fullOrSmoke(15, 1));
const ROOT = join(import.meta.dir, '..');
const GOONDAN = join(ROOT, 'bin', 'goondan');
const SMALL_BUNDLE = join(ROOT, 'bundles', 'demo');

const cases: Array<{ name: string; command: string[]; target: string }> = [
  { name: 'bun -e 0 (floor)', command: [process.execPath, '-e', '0'], target: '' },
  { name: 'goondan --help', command: [GOONDAN, '--help'], target: '≤ 50 ms' },
  { name: 'goondan validate bundles/demo', command: [GOONDAN, 'validate', SMALL_BUNDLE], target: '≤ 250 ms' },
];

interface Sample {
  wallMs: number;
  /** user + system CPU of the process (and what it waited for): steadier than wall time on a loaded machine. */
  cpuMs: number;
}

function runOnce(command: string[]): Sample {
  const started = performance.now();
  const result = Bun.spawnSync(command, { stdout: 'ignore', stderr: 'pipe', env: { ...process.env, GOONDAN_LOG_LEVEL: 'warn' } });
  const wallMs = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`${command.join(' ')} exited ${result.exitCode}: ${result.stderr.toString()}`);
  const cpu = result.resourceUsage.cpuTime;
  return { wallMs, cpuMs: Number(cpu.user + cpu.system) / 1000 };
}


// One warm-up each: the first run may generate cached validators.
for (const c of cases) runOnce(c.command);
const samples = cases.map(() => [] as Sample[]);
for (let round = 0; round < ROUNDS; round++) {
  cases.forEach((c, i) => samples[i]?.push(runOnce(c.command)));
}
const wall = samples.map((s) => median(s.map((x) => x.wallMs)));
const cpu = samples.map((s) => median(s.map((x) => x.cpuMs)));
const floorWall = wall[0] ?? Number.NaN;
const floorCpu = cpu[0] ?? Number.NaN;
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${navigator.hardwareConcurrency} cores; ${ROUNDS} interleaved rounds, medians`);
console.log('command                          wall       ratio   cpu        ratio   target');
cases.forEach((c, i) => {
  const w = wall[i] ?? Number.NaN;
  const u = cpu[i] ?? Number.NaN;
  console.log(
    `${c.name.padEnd(32)} ${`${w.toFixed(1)} ms`.padStart(9)}  ${`${(w / floorWall).toFixed(2)}×`.padStart(6)}  ${`${u.toFixed(1)} ms`.padStart(9)}  ${`${(u / floorCpu).toFixed(2)}×`.padStart(6)}  ${c.target}`,
  );
});
console.log(
  JSON.stringify({
    bench: 'cli',
    loadAverage: loadavg(),
    bunStartMs: floorWall,
    bunStartCpuMs: floorCpu,
    helpMs: wall[1],
    helpCpuMs: cpu[1],
    helpRatio: (wall[1] ?? 0) / floorWall,
    validateMs: wall[2],
    validateCpuMs: cpu[2],
    validateRatio: (wall[2] ?? 0) / floorWall,
  }),
);
