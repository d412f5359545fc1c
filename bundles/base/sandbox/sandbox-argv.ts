/**
 * The bubblewrap command line of one sandboxed process (issue 9). Mounts, in this order (later
 * mounts cover earlier ones):
 *   1. the system read-only: /usr, /bin, /sbin, /lib*, /etc, /opt (symlinks kept as symlinks) —
 *      never `/` as a whole, which would show the state root and home directories;
 *   2. secrets of the system masked: /etc/shadow, /etc/gshadow (and backups), SSH host keys,
 *      /etc/ssl/private;
 *   3. a fresh /proc (this PID namespace only: no other process's environ), a minimal /dev, and
 *      an empty /tmp;
 *   4. `hiddenPaths` (bundle, home) covered with an empty tmpfs when something above shows them;
 *   5. `readOnlyPaths` (what the operator chose to show), then `hiddenFiles` (the daemon's env file)
 *      covered with /dev/null when anything above shows them;
 *   6. the state root covered with an empty tmpfs when anything above shows it;
 *   7. the workspace read-write at its own path, then extra writable paths.
 * Namespaces: all new (mount, PID, IPC, UTS, cgroup, user, network), no capabilities, no nested
 * user namespaces (bwrap ≥ 0.8); `--share-net` only when the network is on. The sandbox dies with
 * its parent.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessSandbox } from '../../../shared/types/sandbox.ts';
import { type BwrapFlags, namespaceFlags } from './bwrap-availability.ts';

export interface SandboxMounts {
  sandbox: ProcessSandbox;
  cwd: string;
  /** Extra host paths the command may write (bash `roots`, an allowed cwd outside the workspace). */
  writablePaths?: readonly string[];
  /** Extra host paths shown read-only for this process only (a script file outside the workspace). */
  readOnlyPaths?: readonly string[];
}

const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-'];
const SECRET_DIRS = ['/etc/ssl/private'];
const SSH_DIR = '/etc/ssh';

interface SystemMounts {
  args: string[];
  /** Real host directories shown by the system mounts. */
  bound: string[];
}

let systemMounts: SystemMounts | undefined;

/** Bubblewrap arguments up to (not including) the `--` before the command. */
export function bwrapArgs(mounts: SandboxMounts, flags: BwrapFlags): string[] {
  const { sandbox } = mounts;
  const system = (systemMounts ??= describeSystem());
  const args = namespaceFlags(flags);
  if (sandbox.network) args.push('--share-net');
  args.push(...system.args);
  if (sandbox.network) args.push(...resolverMounts(system.bound));
  args.push('--proc', '/proc', '--dev', '/dev');
  // /tmp is memory: bound its size like any one file (0 = no bound).
  if (flags.tmpfsSize && sandbox.limits.fileSizeMb > 0) args.push('--size', String(sandbox.limits.fileSizeMb * 1024 * 1024));
  args.push('--tmpfs', '/tmp');

  const readOnly = [...sandbox.readOnlyPaths, ...(mounts.readOnlyPaths ?? [])].map(realOrSelf);
  for (const hidden of sandbox.hiddenPaths.map(realOrSelf)) {
    if (isUnderAny(hidden, system.bound)) args.push('--tmpfs', hidden);
  }
  for (const path of readOnly) args.push('--ro-bind-try', path, path);
  // After the read-only paths: an operator showing /etc/goondan does not show the keys in it.
  for (const file of (sandbox.hiddenFiles ?? []).map(realOrSelf)) {
    if (isUnderAny(file, [...system.bound, ...readOnly]) && lstatSync(file, { throwIfNoEntry: false })?.isFile()) args.push('--ro-bind', '/dev/null', file);
  }
  const stateRoot = realOrSelf(sandbox.stateRoot);
  if (isUnderAny(stateRoot, [...system.bound, ...readOnly])) args.push('--tmpfs', stateRoot);

  args.push('--bind', sandbox.workdir, sandbox.workdir);
  for (const path of mounts.writablePaths ?? []) args.push('--bind', path, path);
  args.push('--chdir', mounts.cwd);
  return args;
}

function describeSystem(): SystemMounts {
  const args: string[] = [];
  const bound: string[] = [];
  for (const path of SYSTEM_PATHS) {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stat?.isDirectory()) {
      args.push('--ro-bind', path, path);
      bound.push(path);
    }
  }
  for (const file of [...SECRET_FILES, ...sshHostKeys()]) {
    if (lstatSync(file, { throwIfNoEntry: false })?.isFile()) args.push('--ro-bind', '/dev/null', file);
  }
  for (const dir of SECRET_DIRS) {
    if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) args.push('--tmpfs', dir, '--remount-ro', dir);
  }
  return { args, bound };
}

function sshHostKeys(): string[] {
  try {
    return readdirSync(SSH_DIR)
      .filter((name) => name.startsWith('ssh_host_') && name.endsWith('_key'))
      .map((name) => join(SSH_DIR, name));
  } catch {
    return [];
  }
}

/** A resolv.conf that links outside the system directories (systemd-resolved) needs its target. */
function resolverMounts(bound: readonly string[]): string[] {
  const target = realOrSelf('/etc/resolv.conf');
  return target === '/etc/resolv.conf' || isUnderAny(target, bound) ? [] : ['--ro-bind-try', target, target];
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isUnderAny(path: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`));
}
