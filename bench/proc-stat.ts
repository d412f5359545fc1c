/**
 * What the benches read of a process from `/proc/PID/stat`: its state, parent and CPU time, and
 * the children of a process.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  state: string;
  ppid: number;
  /** User + system CPU so far, all its threads (100 ticks a second). */
  cpuMs: number;
}

export function procStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return undefined;
  }
}

/** Pids whose parent is `pid`. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (procStat(Number(entry))?.ppid === pid) children.push(Number(entry));
  }
  return children;
}

/** Alive and not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}
