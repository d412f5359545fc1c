/** `ctx.config` of the http-fetch tool (Tool `spec.config` merged with the agent's `tools[].config`). */
import type { JSONSchemaType } from 'ajv';
import { configReader } from '../tool-input.ts';

export interface HttpFetchConfig {
  /** Timeout when the call gives none; default 30000 ms. */
  defaultTimeoutMs?: number;
  /** Response bytes kept when the call gives no maxBytes; default 500000. */
  defaultMaxBytes?: number;
  /** Redirects followed before giving up; default 5. */
  maxRedirects?: number;
  /** Headers sent with every request (the call's headers win). */
  headers?: Record<string, string>;
  /**
   * Private targets this agent may reach (host names, `*.domain` wildcards, addresses, CIDR
   * blocks); everything private is refused without it. Non-empty makes `get` not read-only.
   */
  allow?: string[];
}

const schema: JSONSchemaType<HttpFetchConfig> = {
  type: 'object',
  properties: {
    defaultTimeoutMs: { type: 'integer', minimum: 1, nullable: true },
    defaultMaxBytes: { type: 'integer', minimum: 1, nullable: true },
    maxRedirects: { type: 'integer', minimum: 0, nullable: true },
    headers: { type: 'object', required: [], additionalProperties: { type: 'string' }, nullable: true },
    allow: { type: 'array', items: { type: 'string', minLength: 1 }, nullable: true },
  },
  // A misspelt setting must fail loudly rather than be ignored.
  additionalProperties: false,
};

export const readHttpFetchConfig = configReader<HttpFetchConfig>('http-fetch', schema);
