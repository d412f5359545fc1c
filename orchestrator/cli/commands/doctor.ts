/**
 * `goondan doctor [PATH]`: checks what `goondan run` needs, one line per check starting with
 * `ok`, `warn` or `fail` and, when not ok, the fix. Exit 0 when nothing fails, 3 when there is
 * nothing to load at the PATH given (as goondan run), 1 when anything else fails.
 */
import { resolve } from 'node:path';
import { bundleDirOf, ConfigError, loadEnv } from '../../../shared/config/index.ts';
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { resolveApiPort } from '../api-port.ts';
import { type CliCommand, type CliIo, UsageError, parseOptions } from '../command.ts';
import { checkMcpCommands, checkModels, loadForDoctor, swarmWorkspaces } from '../doctor/bundle-checks.ts';
import { type DoctorCheck, fail, formatCheck } from '../doctor/doctor-check.ts';
import { checkBun, checkBwrap, checkCluster, checkPort, checkStateRoot } from '../doctor/system-checks.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

const usage = `Usage: goondan doctor [PATH] [options]

Check what 'goondan run PATH' needs: Bun, the state root (writable, free space), the API port
(free, or held by the daemon of this bundle's own swarm), bwrap, nats-server (when
GOONDAN_CLUSTER_URL is set), and for the bundle at PATH (default .): that it is valid, each Model's
key is set (values are never printed), a loopback endpoint answers, and each MCP server command is
found. Nothing to load at a PATH given fails; with no PATH and no bundle in the current directory
the bundle checks are skipped.

Options:
      --state-root DIR  state directory (default $GOONDAN_STATE_ROOT, else ~/.goondan)
      --host HOST       API host (default 127.0.0.1)
      --port N          API port (default $GOONDAN_PORT, else 7420)
      --env-file FILE   environment file, as for goondan run
  -h, --help            show this help

Each line starts with ok, warn or fail; a line that is not ok ends with the fix.
Exit codes: 0 nothing failed (warnings allowed) · 1 something failed · 2 usage · 3 nothing to load
at the PATH given (as goondan run)`;

interface DoctorOptions {
  path: string;
  /** PATH was given: nothing to load there is a failure, not a skip. */
  pathGiven: boolean;
  stateRoot: string;
  host: string;
  port: number;
  envFile?: string;
}

function parseDoctorArgs(argv: string[]): DoctorOptions {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { 'state-root': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, 'env-file': { type: 'string' } },
  });
  if (positionals.length > 1) throw new UsageError(`expected at most one PATH, got ${positionals.length}`);
  return {
    path: resolve(positionals[0] ?? '.'),
    pathGiven: positionals[0] !== undefined,
    stateRoot: resolveStateRoot(values['state-root']),
    host: values.host ?? '127.0.0.1',
    port: resolveApiPort(values.port),
    ...(values['env-file'] !== undefined ? { envFile: values['env-file'] } : {}),
  };
}

/** The bundle's checks; `workspaces` (its swarms') when it loaded, `missing` when there is nothing to load at the PATH given. */
interface BundleReport {
  checks: DoctorCheck[];
  workspaces?: string[];
  missing?: true;
}

async function bundleChecks(options: DoctorOptions): Promise<BundleReport> {
  let env: Record<string, string>;
  try {
    env = loadEnv({ bundleDir: bundleDirOf(options.path), processEnv: process.env, ...(options.envFile !== undefined ? { envFile: options.envFile } : {}) });
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    return { checks: [fail(`environment: ${error.problems[0]?.message ?? error.message}`, 'fix the --env-file path')] };
  }
  const loaded = await loadForDoctor(options.path, env, options.pathGiven);
  if (!loaded.bundle) return { checks: [loaded.check], ...(loaded.missing ? { missing: true } : {}) };
  return { checks: [loaded.check, ...(await checkModels(loaded.bundle, env)), ...checkMcpCommands(loaded.bundle, env)], workspaces: swarmWorkspaces(loaded.bundle) };
}

async function run(argv: string[], io: CliIo): Promise<ExitCode> {
  const options = parseDoctorArgs(argv);
  // The bundle first: whose daemon may hold the port depends on its swarms.
  const bundle = await bundleChecks(options);
  const checks: DoctorCheck[] = [
    checkBun(),
    ...checkStateRoot(options.stateRoot),
    await checkPort(options.host, options.port, options.stateRoot, bundle.workspaces),
    checkBwrap(),
    ...checkCluster(process.env.GOONDAN_CLUSTER_URL),
    ...bundle.checks,
  ];
  io.stdout(checks.map(formatCheck).join('\n'));
  if (bundle.missing) return EXIT.configNotFound;
  return checks.some((c) => c.level === 'fail') ? EXIT.runtimeError : EXIT.ok;
}

export const doctorCommand: CliCommand = { name: 'doctor', summary: 'check the machine and a bundle for what goondan run needs', usage, run };
