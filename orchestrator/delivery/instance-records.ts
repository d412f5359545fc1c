/**
 * The daemon making an instance's records durable itself, for a process that cannot any more:
 * an agent that answered before its fsync and exited before acknowledging (unsynced-replies.ts).
 * fsync is per file, not per descriptor: the daemon's sync covers what the agent wrote.
 */
import { join } from 'node:path';
import { namesIn } from '../../shared/dir-names.ts';
import type { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { foldedEvents, type InstancePaths, rewritingBase } from '../../shared/state-paths.ts';

export function syncInstanceRecords(paths: InstancePaths, fsync: FsyncPolicy): void {
  const files = [paths.baseMessages, rewritingBase(paths.baseMessages), paths.baseEdits, paths.messageEvents, foldedEvents(paths.messageEvents), paths.runtimeEvents, paths.toolJournal, paths.asyncReplies, paths.metadata];
  for (const name of namesIn(paths.extensionsDir)) files.push(join(paths.extensionsDir, name));
  for (const file of files) {
    try {
      fsync.syncPath(file);
    } catch {
      // never written: nothing to lose
    }
  }
}
