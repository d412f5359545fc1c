/**
 * The engine's time limit for one call (tool spec §2.4 / issue 11): the export's `timeoutMs` (the
 * agent's `tools[].config.timeoutMs` wins; default 5 minutes) — but never shorter than the call's
 * own limit when the export names the argument that holds it (`timeoutFromArg: timeoutMs`, e.g.
 * bash's kill deadline or agents__request's wait), plus a grace period so the tool's own, clearer
 * timeout result arrives first.
 */
import type { JsonObject } from '../../shared/types/json.ts';
import type { CallLimits } from './tool-registry.ts';

export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60 * 1000;
/** Time a tool needs after its own deadline to stop its work and report (bash: SIGTERM grace + drain). */
export const OWN_LIMIT_GRACE_MS = 10_000;

export function callTimeLimit(limits: CallLimits, args: JsonObject, engineDefault: number = DEFAULT_TOOL_TIMEOUT_MS): number {
  const declared = limits.timeoutMs ?? engineDefault;
  const own = limits.timeoutFromArg === undefined ? undefined : args[limits.timeoutFromArg];
  return typeof own === 'number' && Number.isFinite(own) ? Math.max(declared, own + OWN_LIMIT_GRACE_MS) : declared;
}
