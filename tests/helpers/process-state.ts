/** Test helpers that look at real processes through /proc (Linux). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { WAIT_MS } from './wait-for.ts';

/** True while `pid` exists and is not a zombie (zombies linger where PID 1 does not reap orphans). */
export function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state !== 'Z' && state !== 'X';
}

/** Waits until none of `pids` runs, up to `timeoutMs`; returns the ones still running. */
export async function waitUntilGone(pids: readonly number[], timeoutMs = WAIT_MS): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isRunning);
  while (alive.length > 0 && Date.now() < deadline) {
    await Bun.sleep(50);
    alive = alive.filter(isRunning);
  }
  return alive;
}

/** Ends processes a test started (by id) if a failed assertion left them behind. */
export function killIfRunning(pids: readonly number[]): void {
  for (const pid of pids) {
    if (!isRunning(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * Host pids of running processes whose argv is exactly `argv`. Commands in the sandbox have their
 * own PID namespace, so `echo $!` there prints a pid that means nothing on the host: tests find
 * their processes by a unique command line instead (see `uniqueSleep`).
 */
export function pidsRunning(argv: readonly string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline === wanted && isRunning(Number(entry))) found.push(Number(entry));
  }
  return found;
}

/** Waits until `count` processes with this exact argv run; fails saying what it saw. */
export async function waitForProcesses(argv: readonly string[], count: number, timeoutMs = WAIT_MS): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let pids = pidsRunning(argv);
  while (pids.length < count && Date.now() < deadline) {
    await Bun.sleep(20);
    pids = pidsRunning(argv);
  }
  if (pids.length < count) throw new Error(`waited ${timeoutMs} ms for ${count} process(es) "${argv.join(' ')}", saw ${pids.length}`);
  return pids;
}

/** `sleep <seconds>` with a duration no other test uses: the command line is the marker. */
export function uniqueSleep(): string[] {
  return ['sleep', `${300 + Math.floor(Math.random() * 600)}.${process.pid}${Math.floor(Math.random() * 1e6)}`];
}

export function readPids(text: string): number[] {
  return text
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** The pids in a file a command writes them to; none while it does not exist yet. */
export function readPidFile(path: string): number[] {
  return existsSync(path) ? readPids(readFileSync(path, 'utf8')) : [];
}
