#!/usr/bin/env bun
/**
 * `npm run test:stress [-- [--runs N] [--hogs N] [<bun test filters>…]]`: type-checks once, then runs
 * the test part of `npm test` N times (default 5, or $GOONDAN_STRESS_RUNS) while busy loops keep
 * every core saturated, and reports each run's pass/fail counts and failed tests, then
 * `runs: N, failures: F, slowest file: <path> (<s> s)`, where F counts failed runs. Exits 1 if any
 * run failed. A flaky test shows up here long before it costs a red CI run (issue 16).
 */
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Subprocess } from 'bun';
import { startCpuHogs } from './stress/cpu-hog.ts';
import { type FailedTest, summarizeJunit } from './stress/junit-summary.ts';

const REPO_ROOT = resolve(import.meta.dir, '..');

interface RunResult {
  exitCode: number;
  passed: number;
  failedCount: number;
  failed: FailedTest[];
  fileSeconds: Map<string, number>;
  wallSeconds: number;
  log: string;
}

function usageError(message: string): never {
  console.error(`test:stress: ${message}\nusage: npm run test:stress [-- [--runs N] [--hogs N] [<bun test filters>…]]`);
  process.exit(2);
}

function countArg(value: string | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) usageError(`${what} must be a non-negative integer, got '${value}'`);
  return parsed;
}

/** The `bun test …` part of package.json's `test` script, so a stress run tests what `npm test` tests. */
function bunTestArgs(): string[] {
  const packageJson: { scripts?: Record<string, string> } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  const testScript = packageJson.scripts?.test ?? '';
  const command = testScript.split('&&').map((part) => part.trim()).find((part) => part.startsWith('bun test'));
  if (!command) usageError(`package.json scripts.test has no 'bun test' step (it is: '${testScript}')`);
  return command.split(/\s+/).slice(1);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({ args: Bun.argv.slice(2), allowPositionals: true, options: { runs: { type: 'string' }, hogs: { type: 'string' } } });
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
})();
const runs = countArg(values.runs ?? process.env.GOONDAN_STRESS_RUNS, 5, '--runs');
const hogCount = countArg(values.hogs, availableParallelism(), '--hogs');
const testArgs = [...bunTestArgs(), ...positionals];
const workDir = mkdtempSync(join(tmpdir(), 'goondan-stress-'));

let current: Subprocess | undefined;
const hogs = startCpuHogs(hogCount);
let stopping = false;
async function stopEverything(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.error(`\ntest:stress: ${signal}; stopping the test run and the CPU hogs`);
  current?.kill(signal);
  await Promise.all([hogs.stop(), current?.exited]);
  console.error(`test:stress: logs kept in ${workDir}`);
  process.exit(130);
}
process.on('SIGINT', () => void stopEverything('SIGINT'));
process.on('SIGTERM', () => void stopEverything('SIGTERM'));

/** Runs a command with stdout and stderr in one log file, in the order they were written. */
async function run(command: string[], log: string): Promise<number> {
  const fd = openSync(log, 'a');
  try {
    current = Bun.spawn(command, { cwd: REPO_ROOT, stdin: 'ignore', stdout: fd, stderr: fd });
    const exitCode = await current.exited;
    // Interrupted: the signal handler reports and exits; this run's result means nothing.
    if (stopping) await new Promise<never>(() => {});
    return exitCode;
  } finally {
    current = undefined;
    closeSync(fd);
  }
}

async function testRun(index: number): Promise<RunResult> {
  const report = join(workDir, `run-${index}.xml`);
  const log = join(workDir, `run-${index}.log`);
  const started = performance.now();
  // --no-orphans: an interrupted run takes the daemons its tests started down with it.
  const exitCode = await run([process.execPath, ...testArgs.slice(0, 1), '--no-orphans', '--reporter=junit', `--reporter-outfile=${report}`, ...testArgs.slice(1)], log);
  const wallSeconds = (performance.now() - started) / 1000;
  const output = readFileSync(log, 'utf8');
  if (!existsSync(report)) {
    // No report (bun itself failed): fall back to the console's "(fail) …" lines.
    const failed = [...output.matchAll(/^\(fail\) (.*?)(?: \[[\d.]+m?s\])?$/gm)].map((m) => ({ file: '?', name: m[1] ?? '', message: '' }));
    return { exitCode, passed: Number(/^\s*(\d+) pass$/m.exec(output)?.[1] ?? 0), failedCount: failed.length, failed, fileSeconds: new Map(), wallSeconds, log };
  }
  const summary = summarizeJunit(readFileSync(report, 'utf8'));
  return {
    exitCode,
    passed: summary.tests - summary.failures - summary.skipped,
    failedCount: summary.failures,
    failed: summary.failed,
    fileSeconds: summary.fileSeconds,
    wallSeconds,
    log,
  };
}

console.log(`test:stress: ${runs} run(s) of \`bun ${testArgs.join(' ')}\` with ${hogCount} CPU hog(s) (pids ${hogs.pids.join(', ')}); load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const results: RunResult[] = [];
try {
  const typecheck = await run(['npm', 'run', '--silent', 'typecheck'], join(workDir, 'typecheck.log'));
  if (typecheck !== 0) {
    console.log(`${readFileSync(join(workDir, 'typecheck.log'), 'utf8')}\ntest:stress: the typecheck failed; the suite was not run`);
    process.exitCode = 1;
  }
  for (let index = 1; index <= runs && typecheck === 0; index++) {
    const result = await testRun(index);
    results.push(result);
    const verdict = result.exitCode === 0 ? 'ok' : `FAILED (exit ${result.exitCode}; log ${result.log})`;
    console.log(`run ${index}/${runs}: ${result.passed} pass, ${result.failedCount} fail, ${result.wallSeconds.toFixed(0)} s, load ${loadavg()[0]?.toFixed(2)} — ${verdict}`);
    for (const test of result.failed) console.log(`  (fail) ${test.file}: ${test.name}${test.message ? `\n         ${test.message}` : ''}`);
  }
} finally {
  await hogs.stop();
}
if (process.exitCode === 1) process.exit(1);

const failedRuns = results.filter((result) => result.exitCode !== 0);
let slowest: [string, number] = ['-', 0];
for (const result of results) for (const [file, seconds] of result.fileSeconds) if (seconds > slowest[1]) slowest = [file, seconds];
console.log(`\nruns: ${results.length}, failures: ${failedRuns.length}, slowest file: ${slowest[0]} (${slowest[1].toFixed(1)} s)`);
results.forEach((result, index) => {
  if (result.exitCode === 0) return;
  const names = result.failed.map((test) => `${test.file}: ${test.name}`);
  console.log(`  run ${index + 1}: ${names.length > 0 ? names.join('; ') : `exit ${result.exitCode}, no failed test named (see ${result.log})`}`);
});
if (failedRuns.length === 0) rmSync(workDir, { recursive: true, force: true });
else console.log(`logs and JUnit reports: ${workDir}`);
process.exit(failedRuns.length === 0 ? 0 : 1);
