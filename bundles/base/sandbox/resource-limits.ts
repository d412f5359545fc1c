/**
 * Per-process resource limits of a call (issue 9), set with util-linux `prlimit` in front of the
 * command so every process the command starts inherits them:
 *   cpuSeconds → RLIMIT_CPU, memoryMb → RLIMIT_AS, fileSizeMb → RLIMIT_FSIZE, processes → RLIMIT_NPROC.
 * RLIMIT_NPROC counts a user's processes across the host, except inside the sandbox's own user
 * namespace, where it counts the sandbox's only: so `processes` is set inside bwrap only (and the
 * kernel never applies it to root). A 0 leaves that limit off.
 */
import type { SandboxLimits } from '../../../shared/types/sandbox.ts';

const MIB = 1024 * 1024;
let prlimitPath: string | null | undefined;

/** The `prlimit …` prefix, or null when prlimit is not installed. */
export function limitsPrefix(limits: SandboxLimits, insideSandbox: boolean): string[] | null {
  prlimitPath ??= Bun.which('prlimit', { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' });
  if (prlimitPath === null) return null;
  const flags: string[] = [];
  if (limits.cpuSeconds > 0) flags.push(`--cpu=${limits.cpuSeconds}`);
  if (limits.memoryMb > 0) flags.push(`--as=${limits.memoryMb * MIB}`);
  if (limits.fileSizeMb > 0) flags.push(`--fsize=${limits.fileSizeMb * MIB}`);
  if (insideSandbox && limits.processes > 0) flags.push(`--nproc=${limits.processes}`);
  return flags.length === 0 ? [] : [prlimitPath, ...flags, '--'];
}
