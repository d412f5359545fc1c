/**
 * Busy loops that keep CPU cores saturated while the suite runs (`npm run test:stress`). Each hog is
 * a `bun -e` process; it also exits by itself once its parent is gone, so a killed stress run
 * (even SIGKILL) does not leave cores spinning.
 */
import type { Subprocess } from 'bun';

const BUSY_LOOP = `
const parent = process.ppid;
for (;;) {
  for (let i = 0; i < 5e7; i++);
  if (process.ppid !== parent) process.exit(0);
}
`;

export interface CpuHogs {
  readonly pids: number[];
  stop(): Promise<void>;
}

export function startCpuHogs(count: number): CpuHogs {
  const hogs: Subprocess[] = [];
  for (let i = 0; i < count; i++) {
    hogs.push(Bun.spawn([process.execPath, '-e', BUSY_LOOP], { stdin: 'ignore', stdout: 'ignore', stderr: 'inherit' }));
  }
  return {
    pids: hogs.map((hog) => hog.pid),
    async stop() {
      for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
      await Promise.all(hogs.map((hog) => hog.exited));
    },
  };
}
