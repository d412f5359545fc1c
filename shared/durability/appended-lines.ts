/**
 * A JSON Lines file of state that grows by appends through one kept descriptor, each write
 * registered with the process's fsync policy (synced by its next barrier, or at once under
 * `always`), and that is emptied or closed as a whole: the message store's base, edits and events,
 * the tool-call journal, the async replies kept for the conversation.
 */
import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, writeFileSync, writeSync } from 'node:fs';
import type { FsyncPolicy } from './fsync-policy.ts';

export class AppendedLines {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly fsync: FsyncPolicy,
  ) {}

  /** Appended through the kept descriptor: on disk by the policy's next barrier. Returns the bytes written. */
  append(records: readonly unknown[]): number {
    if (records.length === 0) return 0;
    this.fd ??= openSync(this.path, 'a');
    const written = writeSync(this.fd, toJsonLines(records));
    this.fsync.wrote(this.fd);
    return written;
  }

  /** Appended and synced now (unless the policy is `never`), not left for a barrier. Returns the bytes written. */
  appendSynced(records: readonly unknown[]): number {
    if (records.length === 0) return 0;
    const text = toJsonLines(records);
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
    if (this.fd === undefined) return;
    this.fsync.closing(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

export function toJsonLines(records: readonly unknown[]): string {
  let out = '';
  for (const record of records) out += `${JSON.stringify(record)}\n`;
  return out;
}
