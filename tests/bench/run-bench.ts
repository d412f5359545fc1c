/**
 * Runs one bench (`bun bench/NAME.ts`) as a real subprocess in smoke mode, CI=true, and collects
 * its output. A bench still running at its timeout is killed with everything it started (daemons,
 * agents, nats-server, Chromium), so a hung bench fails its test instead of hanging the suite.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { childPids } from '../../bench/proc-stat.ts';
import { BENCH_SMOKE_ENV } from '../../bench/smoke.ts';

const REPO = resolve(import.meta.dir, '../..');
/** After the bench's exit, how long its output pipes may take to close: whatever it started and still holds them is stopping. */
export const DRAIN_AFTER_EXIT_MS = 10_000;

export interface BenchRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Command lines of what was killed at the timeout: which daemons, nodes or browsers it was waiting on. */
  killed: string[];
  /** Its stdout or stderr was still open DRAIN_AFTER_EXIT_MS after it exited: something it started outlived it. */
  outputHeldOpen: boolean;
  ms: number;
  stdout: string;
  stderr: string;
}

/** Reads a pipe into `sink.text` as it comes, so a killed run's output so far is kept. */
async function collect(stream: ReadableStream<Uint8Array>, sink: { text: string }): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) sink.text += decoder.decode(chunk, { stream: true });
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return `pid ${pid}`;
  }
}

/**
 * SIGSTOPs `root` and every descendant (a stopped process forks no more), then SIGKILLs them all;
 * returns their command lines. By parent pid, not process group: the daemon starts each agent in
 * its own session.
 */
function killTree(root: number): string[] {
  const tree: number[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    try {
      process.kill(pid, 'SIGSTOP');
    } catch {
      continue; // already gone
    }
    tree.push(pid);
    pending.push(...childPids(pid));
  }
  const killed = tree.map(commandLine);
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return killed;
}

export async function runBench(name: string, timeoutMs: number): Promise<BenchRun> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, join(REPO, 'bench', `${name}.ts`)], {
    cwd: REPO,
    env: { ...process.env, [BENCH_SMOKE_ENV]: '1', CI: 'true', GOONDAN_LOG_LEVEL: 'warn' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const stdout = { text: '' };
  const stderr = { text: '' };
  const drained = Promise.all([collect(proc.stdout, stdout), collect(proc.stderr, stderr)]);
  let timedOut = false;
  let killed: string[] = [];
  const timer = setTimeout(() => {
    timedOut = true;
    killed = killTree(proc.pid);
  }, timeoutMs);
  await proc.exited;
  clearTimeout(timer);
  const ms = performance.now() - started;
  const outputHeldOpen = await Promise.race([drained.then(() => false), Bun.sleep(DRAIN_AFTER_EXIT_MS).then(() => true)]);
  return { exitCode: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode), timedOut, killed, outputHeldOpen, ms, stdout: stdout.text, stderr: stderr.text };
}
