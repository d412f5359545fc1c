/** `metadata.json` of an instance (SPEC.md §7): status, identity and timestamps, rewritten atomically. */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type InstanceStatus = 'idle' | 'processing';

export interface InstanceMetadata {
  status: InstanceStatus;
  agentName: string;
  instanceKey: string;
  createdAt: string;
  updatedAt: string;
}

export class InstanceMetadataFile {
  private createdAt: string;

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
    const tmp = `${this.path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
    renameSync(tmp, this.path);
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
