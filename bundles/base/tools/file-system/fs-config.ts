/** `ctx.config` of the file-system tool (Tool `spec.config` merged with the agent's `tools[].config`). */
import type { JSONSchemaType } from 'ajv';
import { configReader } from '../tool-input.ts';
import type { PathPolicy } from '../workspace-path.ts';

export interface FileSystemConfig {
  /** Extra absolute directories the tool may use besides the workspace. */
  roots?: string[];
  /** Switch the containment check off entirely (trusted agents only). */
  allowOutsideWorkdir?: boolean;
  /** Upper bound for `read.maxBytes` (default 1 MB): a model cannot ask for a huge buffer. */
  maxReadBytes?: number;
  /** `write` and `edit` refuse content larger than this (default 10 MB). */
  maxWriteBytes?: number;
  /** `list` stops after this many entries (default 1000). */
  maxListEntries?: number;
  /** `grep` skips files larger than this (default 5 MB). */
  maxGrepFileBytes?: number;
}

const schema: JSONSchemaType<FileSystemConfig> = {
  type: 'object',
  properties: {
    roots: { type: 'array', items: { type: 'string', pattern: '^/' }, nullable: true },
    allowOutsideWorkdir: { type: 'boolean', nullable: true },
    maxReadBytes: { type: 'integer', minimum: 1, nullable: true },
    maxWriteBytes: { type: 'integer', minimum: 1, nullable: true },
    maxListEntries: { type: 'integer', minimum: 1, nullable: true },
    maxGrepFileBytes: { type: 'integer', minimum: 1, nullable: true },
  },
  // A misspelt setting must fail loudly rather than be ignored.
  additionalProperties: false,
};

const readConfig = configReader<FileSystemConfig>('file-system', schema);

/** Config with defaults applied plus the path policy every operation checks against. */
export interface FileSystemSettings {
  policy: PathPolicy;
  maxReadBytes: number;
  maxWriteBytes: number;
  maxListEntries: number;
  maxGrepFileBytes: number;
}

export function fileSystemSettings(workdir: string, rawConfig: unknown): FileSystemSettings {
  const config = readConfig(rawConfig);
  return {
    policy: { workdir, roots: config.roots ?? [], allowOutsideWorkdir: config.allowOutsideWorkdir === true },
    maxReadBytes: config.maxReadBytes ?? 1_000_000,
    maxWriteBytes: config.maxWriteBytes ?? 10_000_000,
    maxListEntries: config.maxListEntries ?? 1000,
    maxGrepFileBytes: config.maxGrepFileBytes ?? 5_000_000,
  };
}
