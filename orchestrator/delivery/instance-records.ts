/**
 * The daemon making an instance's records durable itself, for a process that cannot any more:
 * an agent that answered before its fsync and exited before acknowledging (unsynced-replies.ts).
 * fsync is per file, not per descriptor: the daemon's sync covers what the agent wrote.
 */
import { closeSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InstancePaths } from '../../shared/state-paths.ts';

export function syncInstanceRecords(paths: InstancePaths): void {
  const files = [paths.baseMessages, paths.messageEvents, paths.runtimeEvents, paths.toolJournal, paths.asyncReplies, paths.metadata];
  for (const name of namesIn(paths.extensionsDir)) files.push(join(paths.extensionsDir, name));
  for (const file of files) syncFile(file);
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // no extension state yet
  }
}

function syncFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return; // never written: nothing to lose
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
