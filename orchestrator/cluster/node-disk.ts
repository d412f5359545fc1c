/**
 * Which disk a node's event records are on: an id written once into the workspace's state
 * directory. A node back on the same disk under another `--node-id` (the default, hostname-pid,
 * changes with every start) answers for the events its earlier self accepted, from the same ledger:
 * that earlier self's record (membership.ts: departed, or silent for a lease timeout) is forgotten
 * then, rather than making every unanswered event lookup 503 until an operator removes it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceDir } from '../../shared/state-paths.ts';

const FILE = 'cluster-disk-id';

export function nodeDiskId(stateRoot: string, workspaceId: string): string {
  const dir = workspaceDir(stateRoot, workspaceId);
  const path = join(dir, FILE);
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (id !== '') return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = randomUUID();
  mkdirSync(dir, { recursive: true });
  // Whole or absent: a torn id would name another disk at the next start.
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${id}\n`);
  renameSync(tmp, path);
  return id;
}
