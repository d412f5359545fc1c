/**
 * Whether bubblewrap can sandbox processes on this host, found out once per process and binary:
 * the binary (`GOONDAN_BWRAP_PATH`, else `bwrap` on PATH) must exist AND create the namespaces the
 * sandbox uses — bwrap is often installed in containers that forbid user namespaces, and then
 * every sandboxed call would fail.
 */
import { existsSync } from 'node:fs';

export const BWRAP_PATH_ENV = 'GOONDAN_BWRAP_PATH';
export const INSTALL_BWRAP = 'install bubblewrap (apt-get install -y bubblewrap)';

export type BwrapAvailability = { ok: true; path: string; flags: BwrapFlags } | { ok: false; reason: string };

/** What this bwrap can do beyond the basics (older releases, e.g. Ubuntu 22.04's 0.6, lack these). */
export interface BwrapFlags {
  /** `--disable-userns` (0.8): no nested user namespaces inside the sandbox. */
  disableUserns: boolean;
  /** `--size` (0.7): a size limit for a tmpfs. */
  tmpfsSize: boolean;
}

/** The isolation flags every sandbox uses (sandbox-argv.ts), so the probe tests exactly what a call needs. */
export function namespaceFlags(flags: BwrapFlags): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    ...(flags.disableUserns ? ['--disable-userns'] : []),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
  ];
}

const PROBE_PATH = '/usr/local/bin:/usr/bin:/bin';
const probed = new Map<string, BwrapAvailability>();

export function bwrapAvailability(env: Record<string, string | undefined> = process.env): BwrapAvailability {
  const configured = env[BWRAP_PATH_ENV];
  const path = configured !== undefined && configured !== '' ? configured : Bun.which('bwrap', { PATH: env.PATH ?? PROBE_PATH });
  if (path === null) return { ok: false, reason: 'bwrap not found' };
  let result = probed.get(path);
  if (result === undefined) {
    result = probe(path);
    probed.set(path, result);
  }
  return result;
}

function probe(path: string): BwrapAvailability {
  if (!existsSync(path)) return { ok: false, reason: `bwrap not found (${BWRAP_PATH_ENV}=${path} does not exist)` };
  try {
    const help = Bun.spawnSync([path, '--help'], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH: PROBE_PATH } }).stdout.toString();
    const flags: BwrapFlags = { disableUserns: /^\s+--disable-userns\b/m.test(help), tmpfsSize: /^\s+--size\b/m.test(help) };
    const proc = Bun.spawnSync([path, ...namespaceFlags(flags), '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'], {
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
      env: { PATH: PROBE_PATH },
    });
    if (proc.exitCode === 0) return { ok: true, path, flags };
    const said = proc.stderr.toString().trim().split('\n')[0] ?? '';
    return { ok: false, reason: `bwrap cannot create a sandbox here (${said === '' ? `exit code ${proc.exitCode}` : said})` };
  } catch (error) {
    return { ok: false, reason: `bwrap cannot be run (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The one-line warning when mode `bwrap` falls back to running unsandboxed. */
export function unsandboxedWarning(reason: string): string {
  return `${reason}: tools run unsandboxed; ${INSTALL_BWRAP} or set policy.sandbox.mode: required to refuse`;
}
