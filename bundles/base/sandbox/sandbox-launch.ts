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
  /** The command line that runs `argv` this way. */
  wrap(argv: readonly string[]): string[];
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
  const prefix = [bwrap.path, ...bwrapArgs(request, bwrap.flags), '--', ...limits(request, true)];
  return { sandboxed: true, wrap: (argv) => [...prefix, ...argv] };
}

function unsandboxed(request: LaunchRequest): Launch {
  const prefix = limits(request, false);
  return { sandboxed: false, wrap: (argv) => [...prefix, ...argv] };
}

function limits(request: LaunchRequest, insideSandbox: boolean): string[] {
  const prefix = limitsPrefix(request.sandbox.limits, insideSandbox);
  if (prefix === null && !warnedNoPrlimit) {
    warnedNoPrlimit = true;
    request.logger.warn({ code: 'W_SANDBOX_NO_PRLIMIT' }, 'prlimit not found: tool processes run without resource limits; install util-linux');
  }
  return prefix ?? [];
}
