/**
 * The machine goondan runs on: Bun, the state root (writable, free space), the API port (free,
 * or held by the daemon of this bundle's own swarm), bwrap for tool sandboxing, nats-server in
 * cluster mode.
 */
import { accessSync, constants, existsSync, mkdtempSync, rmSync, statfsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import pkg from '../../../package.json' with { type: 'json' };
import { liveDaemons } from '../../daemon/runtime-file.ts';
import { type DoctorCheck, fail, isLoopbackHost, ok, warn } from './doctor-check.ts';

const MIN_FREE_BYTES = 1024 ** 3;
const REPO_ROOT = join(import.meta.dir, '..', '..', '..');

function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (v: string) => v.split(/[.-]/).slice(0, 3).map((n) => Number.parseInt(n, 10) || 0);
  const [a, b] = [parts(version), parts(minimum)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

export function checkBun(): DoctorCheck {
  const minimum = pkg.dependencies.bun.replace(/^[^\d]*/, '');
  return versionAtLeast(Bun.version, minimum)
    ? ok(`bun ${Bun.version} (${process.execPath})`)
    : fail(`bun ${Bun.version} is older than ${minimum}, the version goondan is tested with`, `npm install in ${REPO_ROOT} (it installs Bun ${pkg.dependencies.bun})`);
}

function nearestExisting(path: string): string {
  let current = path;
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  return current;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
}

export function checkStateRoot(stateRoot: string): DoctorCheck[] {
  const exists = existsSync(stateRoot);
  const base = nearestExisting(stateRoot);
  const fix = `make ${base} writable for this user, or choose another state root (--state-root DIR or GOONDAN_STATE_ROOT)`;
  if (!statSync(base).isDirectory()) return [fail(`state root ${stateRoot}: ${base} is not a directory`, 'choose another state root (--state-root DIR or GOONDAN_STATE_ROOT)')];
  try {
    if (exists) {
      // A real write, not access(): read-only mounts and full disks only show up this way.
      rmSync(mkdtempSync(join(stateRoot, '.doctor-')), { recursive: true });
    } else {
      accessSync(base, constants.W_OK);
    }
  } catch (error) {
    return [fail(`state root ${stateRoot} is not writable (${error instanceof Error ? error.message : String(error)})`, fix)];
  }
  const stats = statfsSync(base);
  const free = stats.bavail * stats.bsize;
  const where = exists ? `state root ${stateRoot} is writable` : `state root ${stateRoot} does not exist yet; it will be created in ${base}`;
  return [
    ok(where),
    free < MIN_FREE_BYTES
      ? warn(`only ${formatBytes(free)} free for the state root (conversations, logs, workspaces)`, `free disk space on ${base}, or choose another --state-root`)
      : ok(`${formatBytes(free)} free for the state root`),
  ];
}

function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * `ownWorkspaces`: the workspace ids of the bundle's swarms, undefined when there is no valid
 * bundle. Only their daemon holding the port is ok: `goondan run` of this bundle fails on another's.
 */
export async function checkPort(host: string, port: number, stateRoot: string, ownWorkspaces: readonly string[] | undefined): Promise<DoctorCheck> {
  if (port === 0) return ok('API port 0: a free port is picked at start');
  if (await portIsFree(host, port)) return ok(`API port ${host}:${port} is free`);
  const holder = liveDaemons(stateRoot).find((daemon) => URL.canParse(daemon.apiUrl) && Number(new URL(daemon.apiUrl).port) === port);
  if (holder) {
    const held = `API port ${host}:${port} is held by the goondan daemon of swarm '${holder.swarm}' (pid ${holder.pid})`;
    const fix = `run on another port: --port N (or GOONDAN_PORT), or stop that daemon: kill -TERM ${holder.pid}`;
    if (ownWorkspaces === undefined) return warn(`${held}; without a valid bundle, doctor cannot tell whether it is this bundle's`, fix);
    if (ownWorkspaces.includes(holder.workspaceId)) return ok(held);
    return fail(`${held}, not of this bundle's swarm`, fix);
  }
  return fail(`API port ${host}:${port} is in use by another program`, `stop that program, or run on another port: --port N (or GOONDAN_PORT)`);
}

export function checkBwrap(): DoctorCheck {
  const bwrap = Bun.which('bwrap');
  if (!bwrap) return warn('bwrap (bubblewrap, for sandboxing tools) is not installed', 'apt-get install -y bubblewrap');
  const probe = Bun.spawnSync([bwrap, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdout: 'ignore', stderr: 'pipe' });
  if (probe.exitCode === 0) return ok(`bwrap ${bwrap} can create a sandbox`);
  return warn(
    `bwrap ${bwrap} cannot create a sandbox here: ${probe.stderr.toString().trim().split('\n')[0] ?? `exit ${probe.exitCode}`}`,
    'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container: run it with a seccomp profile that allows them)',
  );
}

export function checkCluster(clusterUrl: string | undefined): DoctorCheck[] {
  if (!clusterUrl) return [];
  const server = Bun.which('nats-server');
  if (server) return [ok(`nats-server ${server} (GOONDAN_CLUSTER_URL=${clusterUrl})`)];
  let local = true;
  try {
    local = isLoopbackHost(new URL(clusterUrl).hostname);
  } catch {
    return [fail(`GOONDAN_CLUSTER_URL '${clusterUrl}' is not a URL`, 'set it like nats://127.0.0.1:4222, or unset it')];
  }
  const what = `GOONDAN_CLUSTER_URL=${clusterUrl} is set but nats-server is not on PATH`;
  const fix = 'install nats-server (https://nats.io/download/) and start it, or unset GOONDAN_CLUSTER_URL';
  return [local ? fail(what, fix) : warn(`${what} (not needed if the server runs elsewhere)`, fix)];
}
