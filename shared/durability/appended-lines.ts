/**
 * A JSON Lines file of state that grows by appends through one kept descriptor, each write
 * registered with the process's fsync policy (synced by its next barrier, or at once under
 * `always`), and that is emptied or closed as a whole: the message store's base, edits and events,
 * the tool-call journal, the async replies kept for the conversation. Its first append after an
 * open cuts a torn last line a crash left (line-boundary.ts), so no record is glued to one.
 */
import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, writeFileSync } from 'node:fs';
import type { FsyncPolicy } from './fsync-policy.ts';
import { appendWhole, cutTornTail, type TornTailReport } from './line-boundary.ts';

export class AppendedLines {
  private fd: number | undefined;
  /** cutTornTail() ran since the file was last opened for appending (once, not per append). */
  private atLineBoundary = false;

  constructor(
    readonly path: string,
    private readonly fsync: FsyncPolicy,
    private readonly onTornTail?: TornTailReport,
  ) {}

  /** Appended through the kept descriptor: on disk by the policy's next barrier. Returns the bytes written. */
  append(records: readonly unknown[]): number {
    if (records.length === 0) return 0;
    if (this.fd === undefined) {
      this.endAtLineBoundary();
      this.fd = openSync(this.path, 'a');
    }
    const written = appendWhole(this.fd, toJsonLines(records));
    this.fsync.wrote(this.fd);
    return written;
  }

  /** Appended and synced now (unless the policy is `never`), not left for a barrier. Returns the bytes written. */
  appendSynced(records: readonly unknown[]): number {
    if (records.length === 0) return 0;
    const text = toJsonLines(records);
    this.endAtLineBoundary();
    appendFileSync(this.path, text);
    this.fsync.syncPath(this.path);
    return Buffer.byteLength(text);
  }

  empty(): void {
    if (this.fd !== undefined) ftruncateSync(this.fd, 0);
    else if (existsSync(this.path)) writeFileSync(this.path, '');
  }

  /** Its pending writes need no sync: another synced file holds what they said. */
  superseded(): void {
    if (this.fd !== undefined) this.fsync.superseded(this.fd);
  }

  /** Its pending writes synced now, not left for the next barrier. */
  sync(): void {
    if (this.fd !== undefined) this.fsync.syncNow(this.fd);
  }

  /** Synced (pending writes) and closed; a later append opens it again. */
  close(): void {
    // Its owner may put another file in its place (a rewrite): that one is checked when opened.
    this.atLineBoundary = false;
    if (this.fd === undefined) return;
    this.fsync.closing(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** A torn last line (a crash mid-write) would swallow the next record: cut before the first append. */
  private endAtLineBoundary(): void {
    if (this.atLineBoundary) return;
    cutTornTail(this.path, this.onTornTail);
    this.atLineBoundary = true;
  }
}

export function toJsonLines(records: readonly unknown[]): string {
  let out = '';
  for (const record of records) out += `${JSON.stringify(record)}\n`;
  return out;
}
