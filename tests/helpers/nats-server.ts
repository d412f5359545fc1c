/**
 * A real `nats-server -js` for cluster-mode tests (Debian's `nats-server` package, 2.9.x): a free
 * loopback port, a temporary JetStream store, ready when its log says so and it accepts connections.
 * `restart()` keeps the port and the store, for "the NATS server restarts mid-run" tests.
 */
import type { Subprocess } from 'bun';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireSystemTool } from '../deploy/system-tool.ts';

export interface NatsServer {
  /** `nats://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** The JetStream store directory (`-sd`); removed by `stop()`. */
  readonly storeDir: string;
  /** Pid of the running server process (changes on restart). */
  pid(): number;
  /** SIGTERM, SIGKILL if it lingers, waits for the exit, removes the store directory. */
  stop(): Promise<void>;
  /** SIGKILL, waits for the exit; the store stays, so `restart()` brings the server back. */
  kill9(): Promise<void>;
  /** Stops the server if it runs, then starts it again on the same port with the same store. */
  restart(): Promise<void>;
}

const READY_LINE = 'Server is ready';
const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 10_000;
const LOOPBACK = '127.0.0.1';

/** The nats-server binary; installed with apt-get when missing, else a clear error. */
export function requireNatsServer(): string {
  return requireSystemTool('nats-server', 'nats-server');
}

/** The server's version, e.g. `2.9.10` (from `nats-server --version`). */
export function natsServerVersion(): string {
  const result = Bun.spawnSync([requireNatsServer(), '--version'], { stdout: 'pipe', stderr: 'pipe' });
  const output = `${result.stdout}${result.stderr}`.trim();
  const version = output.match(/v?(\d+\.\d+\.\d+)/)?.[1];
  if (result.exitCode !== 0 || version === undefined) throw new Error(`could not read the nats-server version: \`nats-server --version\` exited ${result.exitCode} printing '${output}'`);
  return version;
}

// Servers a test forgot to stop die with the test process, not after it.
const running = new Set<Subprocess>();
const temporaryDirs = new Set<string>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `nats-server -js` on a free loopback port with a fresh store directory. */
export async function startNatsServer(): Promise<NatsServer> {
  const binary = requireNatsServer();
  const root = mkdtempSync(join(tmpdir(), 'goondan-nats-'));
  temporaryDirs.add(root);
  const files: ServerFiles = { root, storeDir: join(root, 'store'), log: join(root, 'nats-server.log') };
  // Another process may take the free port before the server binds it: then pick another.
  let attempt = 0;
  for (;;) {
    const port = await freeLoopbackPort();
    try {
      const first = await launch(binary, port, files);
      return natsServerHandle(binary, port, files, first);
    } catch (error) {
      attempt += 1;
      if (!(error instanceof PortTakenError) || attempt >= 3) {
        removeDir(root);
        throw error;
      }
    }
  }
}

interface ServerFiles {
  /** The temporary directory holding both, removed by `stop()`. */
  root: string;
  storeDir: string;
  /** The server's log (`-l`, appended across restarts). */
  log: string;
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  temporaryDirs.delete(dir);
}

function natsServerHandle(binary: string, port: number, files: ServerFiles, first: Subprocess): NatsServer {
  let child: Subprocess | undefined = first;
  let stopped = false;
  const end = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    if (child === undefined) return;
    await terminate(child, signal);
    child = undefined;
  };
  return {
    url: `nats://${LOOPBACK}:${port}`,
    port,
    storeDir: files.storeDir,
    pid: () => {
      if (child === undefined) throw new Error(`the nats-server on port ${port} is not running`);
      return child.pid;
    },
    stop: async () => {
      await end('SIGTERM');
      stopped = true;
      removeDir(files.root);
    },
    kill9: () => end('SIGKILL'),
    restart: async () => {
      if (stopped) throw new Error(`the nats-server on port ${port} was stopped and its store removed: start a new one`);
      await end('SIGTERM');
      child = await launch(binary, port, files);
    },
  };
}

class PortTakenError extends Error {}

/** Spawns the server and resolves once it is ready; on failure it is killed and its log shown. */
async function launch(binary: string, port: number, files: ServerFiles): Promise<Subprocess> {
  const argv = [binary, '-js', '-a', LOOPBACK, '-p', String(port), '-sd', files.storeDir, '-l', files.log];
  // This launch's lines only: the log is appended to across restarts.
  const logStart = existsSync(files.log) ? statSync(files.log).size : 0;
  const output = (): string => (existsSync(files.log) ? readFileSync(files.log).subarray(logStart).toString() : '');
  // Logging to a file, not a pipe, and unref: a server a test forgot does not keep the test alive.
  const child = Bun.spawn(argv, { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
  child.unref();
  running.add(child);
  void child.exited.then(() => running.delete(child));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await child.exited;
      const log = output();
      const why = `\`${argv.join(' ')}\` exited (${child.exitCode ?? child.signalCode}) before it was ready; its log:\n${log}`;
      throw /address already in use/i.test(log) ? new PortTakenError(why) : new Error(why);
    }
    if (output().includes(READY_LINE) && (await acceptsConnections(port))) return child;
    if (Date.now() >= deadline) {
      await terminate(child, 'SIGKILL');
      throw new Error(`\`${argv.join(' ')}\` was not ready within ${READY_TIMEOUT_MS / 1000} s (waited for '${READY_LINE}' in its log and a TCP connect to port ${port}); its log:\n${output()}`);
    }
    await Bun.sleep(20);
  }
}

async function terminate(child: Subprocess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  child.kill(signal);
  if (signal === 'SIGKILL') {
    await child.exited;
    return;
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  try {
    await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not read the port of a listener on 127.0.0.1:0'))));
    });
  });
}

/** True when a TCP connection to the loopback port succeeds. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: LOOPBACK, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A cluster e2e test's start: a nats-server and a temporary directory, both gone by `cleanups` (run after each test). */
export async function natsAndTempDir(cleanups: Array<() => Promise<void> | void>, prefix: string): Promise<{ nats: NatsServer; dir: string }> {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { nats, dir };
}
