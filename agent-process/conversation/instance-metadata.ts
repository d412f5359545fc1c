/** `metadata.json` of an instance (SPEC.md §7): status, identity and timestamps. */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export type InstanceStatus = 'idle' | 'processing';

export interface InstanceMetadata {
  status: InstanceStatus;
  agentName: string;
  instanceKey: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Rewritten in place through one open descriptor (one small write), not tmp + rename: on ext4 a
 * rename over an existing file forces a data flush (~0.25 ms). A shorter text is
 * padded with spaces (still JSON) instead of truncating the file, which on ext4 waits for any
 * running fsync of it. The file is a status display, never a source of state; a torn write after
 * a crash is simply rewritten.
 */
export class InstanceMetadataFile {
  private readonly createdAt: string;
  private fd: number | undefined;
  /** Bytes in the file: a text never shrinks it (see above). */
  private size = 0;
  private status: InstanceStatus | undefined;
  private processingMark: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly path: string,
    private readonly agentName: string,
    private readonly instanceKey: string,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.createdAt = readCreatedAt(path) ?? new Date().toISOString();
  }

  /**
   * A turn began: `processing` is written only once it has lasted PROCESSING_MARK_DELAY_MS. A short
   * turn (most of them) writes nothing: two writes a turn into a status display are not free, and
   * on ext4 a write can wait for another process's fsync commit.
   */
  turnStarted(): void {
    this.clearMark();
    this.processingMark = setTimeout(() => {
      this.processingMark = undefined;
      this.write('processing');
    }, PROCESSING_MARK_DELAY_MS);
    this.processingMark.unref?.();
  }

  /** The turn ended: `idle` again, if `processing` was written. */
  turnEnded(): void {
    if (this.clearMark()) return;
    if (this.status === 'processing') this.write('idle');
  }

  write(status: InstanceStatus): void {
    this.clearMark();
    this.status = status;
    const data: InstanceMetadata = {
      status,
      agentName: this.agentName,
      instanceKey: this.instanceKey,
      createdAt: this.createdAt,
      updatedAt: new Date().toISOString(),
    };
    const json = JSON.stringify(data, null, 2);
    // padEnd counts characters; a name may have multi-byte ones (the same in every write).
    const multiByteExtra = Buffer.byteLength(json) - json.length;
    const text = `${json.padEnd(this.size - 1 - multiByteExtra)}\n`;
    this.fd ??= openSync(this.path, 'w');
    this.size = Math.max(this.size, writeSync(this.fd, text, 0));
  }

  /** Cancels a pending `processing` mark; true when there was one (nothing was written for the turn). */
  private clearMark(): boolean {
    if (this.processingMark === undefined) return false;
    clearTimeout(this.processingMark);
    this.processingMark = undefined;
    return true;
  }

  close(): void {
    this.clearMark();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A turn longer than this shows `processing` in metadata.json. */
export const PROCESSING_MARK_DELAY_MS = 100;

function readCreatedAt(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'createdAt' in parsed && typeof parsed.createdAt === 'string') return parsed.createdAt;
  } catch {
    // A damaged metadata file is rewritten with a fresh createdAt.
  }
  return undefined;
}
