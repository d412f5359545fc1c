/**
 * Runs one command in its own process group (`detached` → setsid) so a timeout or a cancelled call
 * ends the whole group — the shell and everything it started — with SIGTERM, then SIGKILL after a
 * grace period; what the command left running in the background ends the same way when it
 * returns. A sandboxed command (bubblewrap leads the group) is ended with one SIGKILL: the
 * sandbox's PID namespace takes every process in it along, whatever it did to its own group.
 * Output is captured with caps; stdin is closed so nothing waits for input.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import type { Subprocess } from 'bun';
import { BaseToolError, describeError, systemErrorCode } from '../tool-error.ts';
import { OutputCollector } from './output-collector.ts';

export interface RunOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  killGraceMs: number;
  drainMs: number;
  /** `argv` starts bubblewrap (sandbox-launch.ts). */
  sandboxed: boolean;
  signal?: AbortSignal;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** Name of the signal that ended the command (e.g. `SIGTERM`), or null. */
  signal: string | null;
  timedOut: boolean;
  /** `signal` of the call fired (engine timeout or agent drain). */
  aborted: boolean;
  truncated: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
}

export async function runProcess(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  let proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  try {
    proc = Bun.spawn(options.argv, {
      cwd: options.cwd,
      env: options.env,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      detached: true,
    });
  } catch (error) {
    throw spawnError(options.argv[0], systemErrorCode(error) === 'ENOENT', describeError(error));
  }
  const stdout = new OutputCollector(options.maxOutputBytes);
  const stderr = new OutputCollector(options.maxOutputBytes);
  const pumps = [pump(proc.stdout, stdout), pump(proc.stderr, stderr)];

  let timedOut = false;
  let aborted = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const terminate = (): void => {
    if (killTimer !== undefined) return;
    signalGroup(proc.pid, options.sandboxed ? 'SIGKILL' : 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(proc.pid, 'SIGKILL'), options.sandboxed ? 0 : options.killGraceMs);
  };
  const timeoutTimer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, options.timeoutMs);
  const onAbort = (): void => {
    aborted = true;
    terminate();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    await proc.exited;
    clearTimeout(timeoutTimer);
    // Leftover background processes may still hold the pipes: read them a little longer, then stop.
    await Promise.race([Promise.all(pumps.map((p) => p.done)), sleep(options.drainMs)]);
    for (const p of pumps) p.cancel();
    // Nothing a call started may outlive it (or the agent): end what is left in the background.
    if (killTimer === undefined && groupHasLiveMembers(proc.pid)) terminate();
    if (killTimer !== undefined) await reapGroup(proc.pid, killTimer, options.killGraceMs);
  } finally {
    clearTimeout(timeoutTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }

  return {
    stdout: stdout.text(),
    stderr: stderr.text(),
    exitCode: proc.exitCode,
    signal: signalName(proc.signalCode),
    timedOut,
    aborted,
    truncated: stdout.truncated || stderr.truncated,
    stdoutBytes: stdout.totalBytes,
    stderrBytes: stderr.totalBytes,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * A sandboxed command is started by bubblewrap, so a missing interpreter would only show as a
 * failed run: check it on the host first (same answer: the sandbox shows the host's system).
 */
export function assertRunnable(argv0: string | undefined, cwd: string, path: string | undefined): void {
  if (argv0 === undefined) throw spawnError(argv0, false, 'no command');
  // Like execvp in the child: a name with a slash is a path from the working directory.
  const found = argv0.includes('/') ? existsSync(resolve(cwd, argv0)) : Bun.which(argv0, { PATH: path ?? '', cwd }) !== null;
  if (!found) throw spawnError(argv0, true, argv0.includes('/') ? 'no such file' : 'not found on PATH');
}

function spawnError(argv0: string | undefined, missing: boolean, why: string): BaseToolError {
  return new BaseToolError('E_BASH_SPAWN', `Could not start ${argv0 ?? 'the command'}: ${why}`, {
    suggestion: missing ? 'Check that the interpreter exists (an absolute path, or a name on PATH).' : 'Check the interpreter and the working directory.',
  });
}

interface Pump {
  done: Promise<void>;
  cancel(): void;
}

function pump(stream: ReadableStream<Uint8Array>, sink: OutputCollector): Pump {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { done: finished, value } = await reader.read();
        if (finished) return;
        sink.push(value);
      }
    } catch {
      // Cancelled after the drain period: what was read is kept.
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => undefined) };
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    // A negative pid addresses the process group the detached child leads.
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * After a terminated command's shell is gone, members that ignored SIGTERM may remain: wait for
 * them until the SIGKILL timer fires; when the group is already empty, cancel that timer.
 */
async function reapGroup(pid: number, killTimer: ReturnType<typeof setTimeout>, graceMs: number): Promise<void> {
  const deadline = performance.now() + graceMs;
  while (groupHasLiveMembers(pid) && performance.now() < deadline) await sleep(25);
  if (groupHasLiveMembers(pid)) signalGroup(pid, 'SIGKILL');
  clearTimeout(killTimer);
}

/**
 * kill(-pgid, 0) also succeeds for zombies, which linger where PID 1 does not reap orphans (many
 * containers); on Linux, read /proc to count only members that still run.
 */
function groupHasLiveMembers(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after "(comm)": state ppid pgrp …; comm itself may contain spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (pgrp === String(pgid) && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

function signalName(code: string | number | null): string | null {
  if (code === null || typeof code === 'string') return code;
  return Object.entries(constants.signals).find(([, number]) => number === code)?.[0] ?? `signal ${code}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
