/** `ctx.config` of the bash tool (Tool `spec.config` merged with the agent's `tools[].config`). */
import type { JSONSchemaType } from 'ajv';
import { configReader } from '../tool-input.ts';
import type { PathPolicy } from '../workspace-path.ts';

export interface BashConfig {
  /** Bytes kept per stream (stdout, stderr); default 100 KB. */
  maxOutputBytes?: number;
  /** Timeout when the call gives none; default 30000 ms. */
  defaultTimeoutMs?: number;
  /** After SIGTERM to the process group, wait this long before SIGKILL; default 2000 ms. */
  killGraceMs?: number;
  /** After the shell exits, read output of leftover background processes this long; default 500 ms. */
  drainMs?: number;
  /** Let `cwd` and `script.path` leave the workspace. */
  allowOutsideWorkdir?: boolean;
  /** Extra absolute directories `cwd` and `script.path` may use. */
  roots?: string[];
  /** Extra variables inherited from the agent process: exact names or `PREFIX_*`. */
  inheritEnv?: string[];
  /** Fixed variables for every command. */
  env?: Record<string, string>;
}

const schema: JSONSchemaType<BashConfig> = {
  type: 'object',
  properties: {
    maxOutputBytes: { type: 'integer', minimum: 1, nullable: true },
    defaultTimeoutMs: { type: 'integer', minimum: 1, nullable: true },
    killGraceMs: { type: 'integer', minimum: 0, nullable: true },
    drainMs: { type: 'integer', minimum: 0, nullable: true },
    allowOutsideWorkdir: { type: 'boolean', nullable: true },
    roots: { type: 'array', items: { type: 'string', pattern: '^/' }, nullable: true },
    inheritEnv: { type: 'array', items: { type: 'string' }, nullable: true },
    env: { type: 'object', required: [], additionalProperties: { type: 'string' }, nullable: true },
  },
  // A misspelt setting must fail loudly rather than be ignored.
  additionalProperties: false,
};

export const readBashConfig = configReader<BashConfig>('bash', schema);

export function bashPathPolicy(workdir: string, config: BashConfig): PathPolicy {
  return { workdir, roots: config.roots ?? [], allowOutsideWorkdir: config.allowOutsideWorkdir === true };
}
