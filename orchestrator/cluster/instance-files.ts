/**
 * The files of an instance root that are its state, as the cluster replicates them (the inbox is
 * JetStream's; the tools' workdir stays on its node; runtime-events.jsonl is its node's trace record). The agent process writes them while the
 * daemon reads them, in steps each of which a restore recovers from (a fold appends to the base
 * before it clears the events; a rewrite commits at one rename): a snapshot must be of one instant,
 * not of two steps, so a read that a change crossed is read again.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { foldedEvents, rewritingBase } from '../../shared/state-paths.ts';

const STATE_FILES = [
  'messages/base.jsonl',
  'messages/base-edits.jsonl',
  'messages/events.jsonl',
  // A rewrite a crash interrupted, which the agent finishes when it starts.
  rewritingBase('messages/base.jsonl'),
  foldedEvents('messages/events.jsonl'),
  'messages/tool-journal.jsonl',
  'messages/async-replies.jsonl',
  'metadata.json',
  // Pending approvals and session grants (approval-store.ts, written by the daemon): an approval keeps
  // its id and createdAt across a takeover.
  'approvals.json',
];
const STATE_DIRS = ['extensions'];
/** Reads a busy instance gets before its files are taken as they are (each read takes microseconds). */
const MAX_READS = 8;

/** Relative paths of the state files that exist now. */
export function localStateFiles(root: string): string[] {
  const found = STATE_FILES.filter((path) => existsSync(join(root, path)));
  for (const dir of STATE_DIRS) found.push(...walk(root, dir));
  return found;
}

/** The state files' contents as of one instant: read again when one changed while they were read. */
export function readInstanceFiles(root: string): Record<string, string> {
  for (let read = 1; ; read++) {
    const before = fingerprint(root);
    const files: Record<string, string> = {};
    let vanished = false;
    for (const path of localStateFiles(root)) {
      try {
        files[path] = readFileSync(join(root, path), 'utf8');
      } catch {
        vanished = true; // renamed or removed between the listing and the read
      }
    }
    if ((!vanished && fingerprint(root) === before) || read >= MAX_READS) return files;
  }
}

/** Identity, size and change time of every state file: a rename, an append, a truncation change it. */
function fingerprint(root: string): string {
  let out = '';
  for (const path of [...STATE_FILES, ...STATE_DIRS.flatMap((dir) => walk(root, dir))]) {
    const stat = statSync(join(root, path), { throwIfNoEntry: false, bigint: true });
    out += stat ? `${path}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs};` : `${path}:-;`;
  }
  return out;
}

function walk(root: string, dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...walk(root, path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}
