/**
 * `goondan run`: the daemon in the foreground (systemd `Type=simple`, docker, a terminal).
 * SIGINT/SIGTERM drain everything and exit 0; `--input` sends one message, prints the reply and
 * exits; in a terminal without `--input` the `cli` connector holds the conversation.
 */
import { GoondanError } from '../../../shared/errors/index.ts';
import { type ClusterOptions, clusterOptionsFrom } from '../../cluster/cluster-options.ts';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BundleNotFoundError, ConfigError, discoverBundle, formatHelpPages, formatProblemsText } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/logger.ts';
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { StreamedReply } from '../../../shared/streaming/streamed-reply.ts';
import { AlreadyRunningError, Orchestrator, daemonLogFile } from '../../daemon/orchestrator.ts';
import type { RuntimeEventBus } from '../../daemon/runtime-event-bus.ts';
import { SandboxUnavailableError } from '../../daemon/sandbox-check.ts';
import { ApiConfigError } from '../../http/api-server.ts';
import { resolveApiPort } from '../api-port.ts';
import { checkLogLevel } from '../log-level.ts';
import { type CliCommand, type CliIo, UsageError, parseOptions } from '../command.ts';
import { exchangePrinter } from '../exchange-printer.ts';
import { formatFailure } from '../format-failure.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

const usage = `Usage: goondan run [PATH] [options]

Start the swarm in PATH (a bundle directory holding goondan.yaml, or a YAML file; default .)
in the foreground. Agents start on demand; Ctrl-C / SIGTERM drains them and exits 0.

Options:
  -s, --swarm NAME      swarm to run (default: the only one, else 'default')
      --state-root DIR  state directory (default $GOONDAN_STATE_ROOT, else ~/.goondan)
      --host HOST       API host (default 127.0.0.1; any other host needs GOONDAN_API_TOKEN)
      --port N          API port (default $GOONDAN_PORT, else 7420; with --input a free one; 0 picks any free port)
      --watch           reload when the bundle changes, restarting only what changed
      --env-file FILE   environment file (wins over .env.local, .env and the OS environment)
      --input TEXT      one-shot: send TEXT to the entry agent, print the reply (as it streams
                        when stdout is a terminal), exit
      --cluster URL     join a cluster on NATS JetStream (nats://HOST:4222, tls://… for TLS;
                        user:pass@ or token@ in the URL); every node runs the same bundle
      --cluster-creds FILE   NATS credentials file (JWT + nkey seed)
      --node-id ID      this node's name in the cluster (default: hostname-pid)
      --cluster-lease-seconds N  how long a dead node's partitions wait before others take them (default 10)

Environment: GOONDAN_STATE_ROOT, GOONDAN_PORT, GOONDAN_API_TOKEN,
GOONDAN_LOG_LEVEL (trace, debug, info, warn, error, fatal or silent; default info),
GOONDAN_BWRAP_PATH (the bubblewrap binary; default: bwrap on PATH), GOONDAN_CLUSTER_URL,
GOONDAN_CLUSTER_CREDS, GOONDAN_NODE_ID, GOONDAN_CLUSTER_LEASE_SECONDS.
Exit codes: 0 ok · 1 runtime error (also: an agent requires a sandbox bwrap cannot give here)
· 2 usage · 3 bundle not found · 4 invalid bundle`;

interface RunOptions {
  path: string;
  swarm?: string;
  stateRoot: string;
  host: string;
  port: number;
  watch: boolean;
  envFile?: string;
  input?: string;
  cluster?: ClusterOptions;
}

function parseRunArgs(argv: string[]): RunOptions {
  const parsed = parseOptions({
      args: argv,
      allowPositionals: true,
      options: {
        swarm: { type: 'string', short: 's' },
        'state-root': { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        watch: { type: 'boolean' },
        'env-file': { type: 'string' },
        input: { type: 'string' },
        cluster: { type: 'string' },
        'cluster-creds': { type: 'string' },
        'node-id': { type: 'string' },
        'cluster-lease-seconds': { type: 'string' },
      },
    });
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`expected at most one PATH, got ${positionals.length}`);
  // A one-shot run serves nobody else: without an explicit port it must not collide with a daemon.
  const port = values.input !== undefined && values.port === undefined && !process.env.GOONDAN_PORT ? 0 : resolveApiPort(values.port);
  if (values.input !== undefined && values.input.trim() === '') throw new UsageError('--input needs a non-empty TEXT');
  if (values['env-file'] !== undefined && !existsSync(values['env-file'])) throw new UsageError(`--env-file '${values['env-file']}' does not exist`);
  const cluster = clusterOptionsFrom(
    {
      ...(values.cluster !== undefined ? { cluster: values.cluster } : {}),
      ...(values['cluster-creds'] !== undefined ? { clusterCreds: values['cluster-creds'] } : {}),
      ...(values['node-id'] !== undefined ? { nodeId: values['node-id'] } : {}),
      ...(values['cluster-lease-seconds'] !== undefined ? { leaseSeconds: values['cluster-lease-seconds'] } : {}),
    },
    process.env,
  );
  if (cluster?.credsFile !== undefined && !existsSync(cluster.credsFile)) throw new UsageError(`--cluster-creds '${cluster.credsFile}' does not exist`);
  return {
    path: resolve(positionals[0] ?? '.'),
    stateRoot: resolveStateRoot(values['state-root']),
    host: values.host ?? '127.0.0.1',
    port,
    watch: values.watch === true,
    ...(values.swarm ? { swarm: values.swarm } : {}),
    ...(values['env-file'] ? { envFile: resolve(values['env-file']) } : {}),
    ...(values.input !== undefined ? { input: values.input } : {}),
    ...(cluster ? { cluster } : {}),
  };
}

async function run(argv: string[], io: CliIo): Promise<ExitCode> {
  const options = parseRunArgs(argv);
  checkLogLevel();
  // Before anything starts (log file, orchestrator): nothing to load is exit 3, like validate.
  try {
    discoverBundle(options.path);
  } catch (error) {
    if (!BundleNotFoundError.isInstance(error)) throw error;
    io.stderr(`goondan run: nothing to load at ${error.path} (${error.reason})\n  hint: ${error.suggestion}`);
    return EXIT.configNotFound;
  }
  const oneShot = options.input !== undefined;
  const interactive = !oneShot && process.stdin.isTTY === true;
  // stdout belongs to the user in terminal modes; logs then go to a file.
  const logFile = oneShot || interactive ? daemonLogFile(options.stateRoot) : undefined;
  let logFd: number | undefined;
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    logFd = openSync(logFile, 'a');
  }
  const logger = createLogger({ name: 'orchestrator', ...(logFd !== undefined ? { destination: logFd } : {}) });
  const color = process.stderr.isTTY === true;
  let finish: (code: ExitCode) => void = () => {};
  const finished = new Promise<ExitCode>((resolve) => {
    finish = resolve;
  });

  const orchestrator = new Orchestrator({
    bundlePath: options.path,
    stateRoot: options.stateRoot,
    host: options.host,
    port: options.port,
    watch: options.watch,
    processEnv: process.env,
    logger,
    childOutput: logFd ?? 'inherit',
    interactive,
    ...(logFile ? { logFile } : {}),
    ...(options.swarm ? { swarmName: options.swarm } : {}),
    ...(options.envFile ? { envFile: options.envFile } : {}),
    ...(options.cluster ? { cluster: options.cluster } : {}),
    ...(process.env.GOONDAN_API_TOKEN ? { apiToken: process.env.GOONDAN_API_TOKEN } : {}),
    ...(oneShot || interactive ? { onExchange: exchangePrinter((line) => process.stderr.write(line), color) } : {}),
    onInteractiveEnd: () => void orchestrator.stop().then(() => finish(EXIT.ok)),
    onWarning: (text) => io.stderr(`goondan: ${text}`),
  });

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      io.stderr(`goondan: second ${signal}; stopping without waiting for turns to finish`);
      process.exit(130);
    }
    logger.info({ signal }, 'signal received; draining');
    if (interactive) io.stderr('\ngoondan: stopping (Ctrl-C again to force)');
    void orchestrator.stop().then(() => finish(EXIT.ok));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The terminal or ssh session went away: drain as for SIGTERM rather than die mid-turn.
  process.on('SIGHUP', onSignal);

  try {
    await orchestrator.start();
  } catch (error) {
    await orchestrator.stop().catch(() => undefined);
    return reportStartFailure(error, io);
  }

  const swarm = orchestrator.swarm;
  if (oneShot && options.input !== undefined) {
    const submitted = orchestrator.submit({
      agent: swarm.entryAgent,
      input: options.input,
      source: { kind: 'cli', name: 'you' },
      wait: true,
    });
    // A person at a terminal sees the reply as it streams. A pipe or file gets the reply alone: text
    // of earlier steps (said before a tool call, or nudged away) cannot be taken back there.
    // Subscribed in the tick of the submit, before any of the turn's events can arrive.
    const shown = new StreamedReply();
    const write = process.stdout.isTTY === true ? io.write : undefined;
    const stopShowing = write ? showReplyAsItStreams(orchestrator.runtimeEvents, { traceId: submitted.traceId, agent: swarm.entryAgent, instanceKey: submitted.instanceKey }, shown, write) : () => {};
    // A signal mid-turn drains the swarm (onSignal); the reply may then never come, and waiting
    // for it would keep the process alive after 'orchestrator stopped'.
    const outcome = await Promise.race([submitted.reply, finished.then(() => 'stopped' as const)]);
    stopShowing();
    if (outcome === 'stopped') {
      io.write?.(shown.lineBreak());
      io.stderr(`goondan run: stopped by a signal before the reply arrived (trace ${submitted.traceId}; log ${logFile})`);
      return EXIT.runtimeError;
    }
    await orchestrator.stop();
    if (!outcome) return EXIT.runtimeError;
    if (outcome.status === 'ok') {
      // What the stream did not show (all of it for a model that does not stream), and the line end.
      (io.write ?? io.stdout)(shown.finish(outcome.output));
      return EXIT.ok;
    }
    io.write?.(shown.lineBreak());
    io.stderr(formatFailure('goondan run', outcome.error, outcome.status, `trace ${outcome.traceId ?? submitted.traceId}; log ${logFile}`));
    return EXIT.runtimeError;
  }

  const where = logFile ? `; logs: ${logFile}` : '';
  io.stderr(`goondan: swarm '${swarm.name}' running (agents: ${swarm.agents.join(', ')}) — API ${orchestrator.apiUrl}${where}`);
  if (interactive) io.stderr(`Talk to '${swarm.entryAgent}' below. Ctrl-D or Ctrl-C to quit.`);
  return finished;
}

/** Writes the replying agent's `step.delta` text of one trace as it is published; returns the unsubscribe. */
function showReplyAsItStreams(events: RuntimeEventBus, reply: { traceId: string; agent: string; instanceKey: string }, shown: StreamedReply, write: (text: string) => void): () => void {
  return events.subscribe((event) => {
    if (event.type !== 'step.delta' || event.traceId !== reply.traceId || event.agentName !== reply.agent || event.instanceKey !== reply.instanceKey) return;
    write(shown.chunk(event.stepId, event.text));
  });
}

function reportStartFailure(error: unknown, io: CliIo): ExitCode {
  if (error instanceof BundleNotFoundError) {
    io.stderr(`goondan run: ${error.message}`);
    return EXIT.configNotFound;
  }
  if (error instanceof ConfigError) {
    const help = formatHelpPages(error.problems);
    io.stderr(`goondan run: the bundle is invalid (${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}):\n${formatProblemsText(error.problems, process.cwd())}${help ? `\n${help}` : ''}`);
    return EXIT.invalidBundle;
  }
  if (error instanceof ApiConfigError) {
    io.stderr(`goondan run: ${error.message}`);
    return EXIT.usage;
  }
  // The bundle is valid; this host lacks what it requires: a runtime error (exit 1), not exit 4.
  if (SandboxUnavailableError.isInstance(error)) {
    io.stderr(`goondan run: ${error.code}: ${error.message}. To fix: ${error.suggestion}.`);
    return EXIT.runtimeError;
  }
  if (error instanceof AlreadyRunningError) {
    io.stderr(`goondan run: ${error.message}`);
    return EXIT.runtimeError;
  }
  if (GoondanError.isInstance(error) && error.code === 'CLUSTER_UNAVAILABLE') {
    io.stderr(`goondan run: ${error.code}: ${error.message}${error.suggestion ? `. To fix: ${error.suggestion}.` : ''}`);
    return EXIT.runtimeError;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`goondan run: cannot start: ${message}`);
  return EXIT.runtimeError;
}

export const runCommand: CliCommand = { name: 'run', summary: 'start a swarm in the foreground (the daemon)', usage, run };
