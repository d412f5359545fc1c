/**
 * When appended records reach the disk (`Swarm.spec.policy.durability.fsync`, issue 10):
 * - `always`: every append is fsynced before the writer moves on — survives power loss record by record.
 * - `batch` (default): appends are fsynced at most every BATCH_FSYNC_INTERVAL_MS, and always before
 *   something leaves the process that others act on (a reply, an ack, an accepted event's id, a
 *   tool handler's external effect): nothing anyone was told about can be lost, only work in flight.
 * - `never`: the page cache only — survives a crash of any goondan process, not of the machine.
 * One policy per process; files register the descriptors they wrote to.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';

export const FSYNC_MODES = ['always', 'batch', 'never'] as const;
export type FsyncMode = (typeof FSYNC_MODES)[number];
export const DEFAULT_FSYNC_MODE: FsyncMode = 'batch';
export const BATCH_FSYNC_INTERVAL_MS = 50;

export class FsyncPolicy {
  private readonly dirty = new Set<number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** fsync calls made (the bench reports them). */
  syncs = 0;

  constructor(readonly mode: FsyncMode = DEFAULT_FSYNC_MODE) {}

  /** Call after each write to `fd`. */
  wrote(fd: number): void {
    if (this.mode === 'never') return;
    if (this.mode === 'always') {
      this.sync(fd);
      return;
    }
    this.dirty.add(fd);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.barrier(), BATCH_FSYNC_INTERVAL_MS);
      this.timer.unref?.();
    }
  }

  /** Before a reply, an ack or an external effect is released: everything written so far is on disk. */
  barrier(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const fd of this.dirty) this.sync(fd);
    this.dirty.clear();
  }

  /** Call before closing `fd`: its pending writes are synced first (the number may be reused). */
  closing(fd: number): void {
    if (!this.dirty.delete(fd)) return;
    this.sync(fd);
  }

  /** Call before closing `fd` when a synced file replaced its contents (compaction): its pending writes need no sync. */
  superseded(fd: number): void {
    this.dirty.delete(fd);
  }

  /** A file written whole (write + rename): synced unless the mode is `never`. */
  syncPath(path: string): void {
    if (this.mode === 'never') return;
    const fd = openSync(path, 'r');
    try {
      this.sync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private sync(fd: number): void {
    try {
      fsyncSync(fd);
      this.syncs += 1;
    } catch {
      // A descriptor closed behind our back has nothing left to sync.
    }
  }
}
