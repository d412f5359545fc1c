/** One line of `goondan doctor`: `ok`, `warn` or `fail`, what was checked, and the fix when not ok. */
import { isLoopbackHost as isLoopbackAddress } from '../../http/loopback-host.ts';

export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  level: CheckLevel;
  /** What was checked and what was found; never a secret's value. */
  what: string;
  /** What to do about it (warn / fail only). */
  fix?: string;
}

export const ok = (what: string): DoctorCheck => ({ level: 'ok', what });
export const warn = (what: string, fix: string): DoctorCheck => ({ level: 'warn', what, fix });
export const fail = (what: string, fix: string): DoctorCheck => ({ level: 'fail', what, fix });

export function formatCheck(check: DoctorCheck): string {
  return `${check.level.padEnd(4)}  ${check.what}${check.fix !== undefined ? ` — fix: ${check.fix}` : ''}`;
}

/** True for a host name that means this machine (what doctor may probe without going out). */
export function isLoopbackHost(hostname: string): boolean {
  // 0.0.0.0 is no loopback address, but a connection to it reaches this machine.
  return isLoopbackAddress(hostname) || hostname === '0.0.0.0';
}
