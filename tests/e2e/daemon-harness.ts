/**
 * Starts the real daemon (`bin/goondan run`) as a subprocess on an ephemeral port with a temp
 * state root, collects its JSON log lines (its own and its children's, which inherit stdout), and
 * offers the few operations the e2e tests need.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'bun:test';
import type { Subprocess } from 'bun';
import { instancePaths } from '../../shared/state-paths.ts';
import { readApiToken } from '../../orchestrator/http/api-credential.ts';
import { WAIT_MS, waitFor } from '../helpers/wait-for.ts';

export { WAIT_MS, waitFor, waitForProgress, waitUntil } from '../helpers/wait-for.ts';
export { isRunning } from '../helpers/process-state.ts';

// Per-test limit: `npm test` passes --timeout 300000 (setDefaultTimeout here would only reach the
// first test file that imports this module). Waits inside a test use WAIT_MS, well under that
// limit, so a timeout fails with a message about what was awaited rather than a bare test timeout.

/** Limit for hooks that start a daemon and then wait for something (hooks do not get --timeout). */
export const DAEMON_TEST_MS = 300_000;
/**
 * How long POST /v1/events waits for a reply unless a test says otherwise: the daemon's default
 * (60 s) is for production callers; a test's turn may include process starts or three crashes on
 * a starved machine.
 */
const REPLY_TIMEOUT_MS = 2 * WAIT_MS;

export const REPO_ROOT = resolve(import.meta.dir, '../..');
export const GOONDAN_BIN = join(REPO_ROOT, 'bin/goondan');

export type LogLine = Record<string, unknown>;

export interface Daemon {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  url: string;
  stateRoot: string;
  logs: LogLine[];
  stderr(): string;
  api(path: string, init?: RequestInit): Promise<Response>;
  /** POST /v1/events (timeoutMs defaults to REPLY_TIMEOUT_MS) and parse the JSON answer. */
  send(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The first log line (so far or to come) matching `predicate`; `what` names it in a timeout. */
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  processes(): Promise<Array<Record<string, unknown>>>;
  /**
   * Sends a signal and resolves with the exit code. After a graceful stop (not SIGKILL) every log
   * line is in `logs`: it also waits for stdout to close, which happens once no child holds it.
   */
  stop(signal?: NodeJS.Signals): Promise<number>;
  cleanup(): void;
}

export function tempStateRoot(): string {
  return mkdtempSync(join(tmpdir(), 'goondan-e2e-'));
}

export async function startDaemon(
  bundlePath: string,
  options: { env?: Record<string, string>; args?: string[]; stateRoot?: string; /** Another goondan's launcher (a private copy of the package). */ bin?: string } = {},
): Promise<Daemon> {
  const stateRoot = options.stateRoot ?? tempStateRoot();
  const proc = Bun.spawn([options.bin ?? GOONDAN_BIN, 'run', bundlePath, '--port', '0', '--state-root', stateRoot, ...(options.args ?? [])], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, GOONDAN_LOG_LEVEL: 'debug', ...options.env },
  });
  const logs: LogLine[] = [];
  const waiters: Array<{ predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  let stderrText = '';
  const stdoutClosed = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        let line: LogLine;
        try {
          line = JSON.parse(text);
        } catch {
          line = { raw: text };
        }
        logs.push(line);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(line)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
    }
  })();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) stderrText += decoder.decode(chunk, { stream: true });
  })();
  let closed = false;
  void stdoutClosed.then(() => {
    closed = true;
  });

  const waitForLog = (what: string, predicate: (line: LogLine) => boolean, timeoutMs = WAIT_MS): Promise<LogLine> => {
    const found = logs.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out after ${timeoutMs / 1000} s waiting for the log line: ${what}\nstderr:\n${stderrText}\nlast ${Math.min(15, logs.length)} of ${logs.length} log lines:\n${logs.slice(-15).map((l) => JSON.stringify(l)).join('\n')}`,
            ),
          ),
        timeoutMs,
      );
      waiters.push({
        predicate,
        resolve: (line) => {
          clearTimeout(timer);
          resolvePromise(line);
        },
      });
    });
  };

  const started = await Promise.race([
    waitForLog('orchestrator started', (l) => l.msg === 'orchestrator started'),
    proc.exited.then((code) => {
      throw new Error(`daemon exited with ${code} before starting; stderr:\n${stderrText}`);
    }),
  ]);
  const url = String(started.api);
  const api = (path: string, init?: RequestInit) => fetch(`${url}${path}`, withToken(stateRoot, init));
  return {
    proc,
    url,
    stateRoot,
    logs,
    stderr: () => stderrText,
    api,
    async send(body) {
      const withTimeout = { timeoutMs: REPLY_TIMEOUT_MS, ...body };
      const response = await api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(withTimeout) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    waitForLog,
    async processes() {
      const response = await api('/v1/processes');
      const body = (await response.json()) as { processes: Array<Record<string, unknown>> };
      return body.processes;
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await proc.exited;
      // The exit can be seen before the last lines are read from the pipe.
      if (signal !== 'SIGKILL') await waitFor('the daemon\'s stdout to close after its exit (a child still holds it?)', () => closed, (done) => done);
      return code;
    },
    cleanup() {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(stateRoot, { recursive: true, force: true });
    },
  };
}

/** The daemons a test file starts: each is stopped gracefully and its state removed after the file's tests. */
export function daemonsStoppedAfterAll(): Daemon[] {
  const daemons: Daemon[] = [];
  afterAll(async () => {
    for (const daemon of daemons) {
      await daemon.stop();
      daemon.cleanup();
    }
  }, DAEMON_TEST_MS);
  return daemons;
}

/** The daemons a test starts: each is killed (SIGKILL: nothing to drain) and its state removed after that test. */
export function daemonsKilledAfterEach(): Daemon[] {
  const daemons: Daemon[] = [];
  afterEach(async () => {
    for (const daemon of daemons.splice(0)) {
      await daemon.stop('SIGKILL');
      daemon.cleanup();
    }
  });
  return daemons;
}

/** One daemon for a whole test file: started before its tests, stopped and removed after. */
export function sharedDaemon(bundlePath: string, options: Parameters<typeof startDaemon>[1] = {}): () => Daemon {
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    daemon = await startDaemon(bundlePath, options);
  }, DAEMON_TEST_MS);
  // Draining every agent can take longer than the default 5 s hook limit on a loaded machine.
  afterAll(async () => {
    await daemon?.stop();
    daemon?.cleanup();
  }, DAEMON_TEST_MS);
  return () => {
    if (!daemon) throw new Error('the shared daemon has not started');
    return daemon;
  };
}

export interface TerminalRun {
  proc: Subprocess<'pipe', 'pipe', 'pipe'>;
  /** Everything the terminal showed so far. */
  output(): string;
  /** Types into the terminal. */
  type(text: string): void;
  /** The exit code; a run still going after WAIT_MS fails with the end of the screen. */
  exited(): Promise<number>;
}

/**
 * `goondan run` under `script`, which gives it a real pseudo-terminal as a person at a shell
 * would have: the interactive `cli` connector, prompts and Ctrl-C/Ctrl-D behave as they do for users.
 */
export async function startTerminalRun(bundlePath: string, stateRoot: string, env: Record<string, string> = {}): Promise<TerminalRun> {
  const proc = Bun.spawn(['script', '-qfec', `${GOONDAN_BIN} run ${bundlePath} --port 0 --state-root ${stateRoot}`, '/dev/null'], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, ...env },
  });
  let output = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) output += decoder.decode(chunk, { stream: true });
  })();
  await terminalShows({ output: () => output }, '> ', 'the prompt');
  return {
    proc,
    output: () => output,
    type(text) {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    async exited() {
      const running = () => proc.exitCode === null && proc.signalCode === null;
      await waitFor('the terminal run to exit; the screen ends with', () => (running() ? output.slice(-1500) : ''), () => !running());
      // What it printed last may still be in the pipe: the screen is whole once the pipe is read to its end.
      await reading;
      return proc.exited;
    },
  };
}

/** Adds the state root's API credential (runtime/api-token), as the goondan CLI does. */
export function withToken(stateRoot: string, init: RequestInit = {}): RequestInit {
  const headers = new Headers(init.headers);
  const token = readApiToken(stateRoot);
  if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/** Waits until the terminal has shown `text`; a timeout shows the end of the screen. */
export async function terminalShows(terminal: Pick<TerminalRun, 'output'>, text: string, what: string, timeoutMs = WAIT_MS): Promise<void> {
  await waitFor(`${what} (${JSON.stringify(text)} in the terminal)`, () => terminal.output(), (output) => output.includes(text), timeoutMs);
}

/** Runtime events of one instance from the state directory. */
export async function readRuntimeEvents(stateRoot: string, workspaceId: string, agent: string, instanceKey: string): Promise<Array<Record<string, unknown>>> {
  const file = instancePaths(stateRoot, workspaceId, agent, instanceKey).runtimeEvents;
  const text = await Bun.file(file).text();
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
