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
 * rename over an existing file forces a data flush (~0.25 ms), twice per turn. A shorter text is
 * padded with spaces (still JSON) instead of truncating the file, which on ext4 waits for any
 * running fsync of it. The file is a status display, never a source of state; a torn write after
 * a crash is simply rewritten.
 */
export class InstanceMetadataFile {
  private readonly createdAt: string;
  private fd: number | undefined;
  /** Bytes in the file: a text never shrinks it (see above). */
  private size = 0;

  constructor(
    private readonly path: string,
    private readonly agentName: string,
    private readonly instanceKey: string,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.createdAt = readCreatedAt(path) ?? new Date().toISOString();
  }

  write(status: InstanceStatus): void {
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

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

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
