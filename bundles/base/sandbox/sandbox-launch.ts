/**
 * Turns a command into the command line that runs it as configured (issue 9): inside bubblewrap
 * (mode `bwrap` / `required`) or not (`none`, or `bwrap` where bubblewrap cannot work — then with a
 * warning, once per process), with the resource limits in front either way. `required` without a
 * working bubblewrap is E_SANDBOX_UNAVAILABLE: nothing runs.
 */
import type { Logger } from '../../../shared/types/tools.ts';
import { bwrapAvailability, INSTALL_BWRAP, unsandboxedWarning } from './bwrap-availability.ts';
import { limitsPrefix } from './resource-limits.ts';
import { bwrapArgs, type SandboxMounts } from './sandbox-argv.ts';
import { SandboxError } from './sandbox-error.ts';

export interface LaunchRequest extends SandboxMounts {
  logger: Logger;
  /** Where GOONDAN_BWRAP_PATH and PATH are read (default: this process's environment). */
  env?: Record<string, string | undefined>;
}

export interface Launch {
  /** False when the command runs directly on the host (mode none, or the bwrap fallback). */
  sandboxed: boolean;
  /** The command line that runs `argv` this way, and the environment to spawn that line with for `argv` to see `env`. */
  wrap(argv: readonly string[], env?: Readonly<Record<string, string>>): { argv: string[]; env: Record<string, string> };
}

/**
 * Variables the host's dynamic loader and C library act on when a program starts. Sandboxed, the
 * program spawned on the host is bwrap itself (not setuid here, so the loader honours them): a
 * tool call's `env: {LD_PRELOAD: <a library it wrote>}` ran code on the host before any namespace
 * existed. They go into the box with --setenv instead; everything else keeps riding the
 * environment (not bwrap's argv, which any user on the host can read).
 */
const LOADER_VARIABLES = /^(LD_|MALLOC_|GLIBC_|GCONV_PATH$|GETCONF_DIR$|HOSTALIASES$|LOCALDOMAIN$|LOCPATH$|NIS_PATH$|NLSPATH$|RESOLV_HOST_CONF$|RES_OPTIONS$|TZDIR$)/;

export function isLoaderVariable(name: string): boolean {
  return LOADER_VARIABLES.test(name);
}

/** Each distinct reason is logged once per process, not once per call. */
const warnedUnsandboxed = new Set<string>();
let warnedNoPrlimit = false;

export function prepareLaunch(request: LaunchRequest): Launch {
  const { sandbox, logger } = request;
  if (sandbox.mode === 'none') return unsandboxed(request);
  const bwrap = bwrapAvailability(request.env);
  if (!bwrap.ok) {
    if (sandbox.mode === 'required') {
      throw new SandboxError(
        'E_SANDBOX_UNAVAILABLE',
        `This tool must run sandboxed (sandbox mode: required), but ${bwrap.reason}; nothing was run.`,
        `Ask the operator to ${INSTALL_BWRAP} on the host, or to set sandbox.mode: bwrap to allow unsandboxed runs.`,
      );
    }
    if (!warnedUnsandboxed.has(bwrap.reason)) {
      warnedUnsandboxed.add(bwrap.reason);
      logger.warn({ code: 'W_SANDBOX_UNAVAILABLE', reason: bwrap.reason }, unsandboxedWarning(bwrap.reason));
    }
    return unsandboxed(request);
  }
  const box = [bwrap.path, ...bwrapArgs(request, bwrap.flags)];
  const inside = limits(request, true);
  return {
    sandboxed: true,
    wrap: (argv, env = {}) => {
      const host: Record<string, string> = {};
      const setenv: string[] = [];
      for (const [name, value] of Object.entries(env)) {
        if (isLoaderVariable(name)) setenv.push('--setenv', name, value);
        else host[name] = value;
      }
      return { argv: [...box, ...setenv, '--', ...inside, ...argv], env: host };
    },
  };
}

function unsandboxed(request: LaunchRequest): Launch {
  const prefix = limits(request, false);
  return { sandboxed: false, wrap: (argv, env = {}) => ({ argv: [...prefix, ...argv], env: { ...env } }) };
}

function limits(request: LaunchRequest, insideSandbox: boolean): string[] {
  const prefix = limitsPrefix(request.sandbox.limits, insideSandbox);
  if (prefix === null && !warnedNoPrlimit) {
    warnedNoPrlimit = true;
    request.logger.warn({ code: 'W_SANDBOX_NO_PRLIMIT' }, 'prlimit not found: tool processes run without resource limits; install util-linux');
  }
  return prefix ?? [];
}
