/** One line of `goondan doctor`: `ok`, `warn` or `fail`, what was checked, and the fix when not ok. */
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
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '0.0.0.0';
}
