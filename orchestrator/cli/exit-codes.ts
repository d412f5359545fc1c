/** CLI exit codes (ARCHITECTURE §6). */
export const EXIT = {
  ok: 0,
  runtimeError: 1,
  usage: 2,
  configNotFound: 3,
  invalidBundle: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
