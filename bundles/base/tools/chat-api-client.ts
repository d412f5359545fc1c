/**
 * What the `telegram` and `slack` tools share: where the bot token and the API base URL come from,
 * and one provider call with the connectors' bounded retries (bundles/base/connectors/common),
 * its failure turned into a tool error the model can read. The base URL comes from the tool's
 * config or the environment, never from the model: a model-chosen URL would receive the token.
 */
import type { JSONSchemaType } from 'ajv';
import type { ToolContext } from '../../../shared/types/index.ts';
import { ConnectorError } from '../connectors/common/connector-error.ts';
import { type Interpret, type ProviderRequest, requestWithRetry } from '../connectors/common/provider-request.ts';
import { configReader } from './tool-input.ts';
import { BaseToolError, abortedError } from './tool-error.ts';

/** For a context without a signal (direct calls in tests). */
export const NEVER_ABORTED = new AbortController().signal;

export interface ChatToolConfig {
  /** The provider API's base URL (tests point it at a fake). */
  apiBaseUrl?: string;
  /** Tries per call, the first included (default 3). */
  retryAttempts?: number;
  /** First retry delay in ms (default 500). */
  retryBaseMs?: number;
}

const configSchema: JSONSchemaType<ChatToolConfig> = {
  type: 'object',
  properties: {
    apiBaseUrl: { type: 'string', pattern: '^https?://', nullable: true },
    retryAttempts: { type: 'integer', minimum: 1, maximum: 10, nullable: true },
    retryBaseMs: { type: 'integer', minimum: 0, maximum: 60_000, nullable: true },
  },
  additionalProperties: false,
};

export interface ChatApiTarget {
  tool: 'telegram' | 'slack';
  token: string;
  baseUrl: string;
  config: ChatToolConfig;
}

export interface ChatApiSource {
  tool: 'telegram' | 'slack';
  tokenEnv: readonly string[];
  baseUrlEnv: string;
  defaultBaseUrl: string;
}

const readers = { telegram: configReader<ChatToolConfig>('telegram', configSchema), slack: configReader<ChatToolConfig>('slack', configSchema) };

/** The token (argument, else the first set environment variable) and base URL of a call. */
export function chatApiTarget(ctx: ToolContext, token: string | undefined, source: ChatApiSource): ChatApiTarget {
  const config = readers[source.tool](ctx.config);
  const resolved = token?.trim() || source.tokenEnv.map((name) => process.env[name]?.trim()).find((value) => value !== undefined && value !== '');
  if (!resolved) {
    throw new BaseToolError('E_TOOL_CONFIG', `No ${source.tool} bot token: pass token or set ${source.tokenEnv.join(' / ')} in the environment.`, {
      suggestion: `Set ${source.tokenEnv[0]} (e.g. in .env beside the bundle).`,
    });
  }
  const baseUrl = (config.apiBaseUrl ?? process.env[source.baseUrlEnv] ?? source.defaultBaseUrl).replace(/\/+$/, '');
  return { tool: source.tool, token: resolved, baseUrl, config };
}

/** One API call with retries; a final failure is `E_<TOOL>_API` with the provider's reason. */
export async function callChatApi(ctx: ToolContext, target: ChatApiTarget, request: ProviderRequest, interpret: Interpret): Promise<unknown> {
  try {
    return await requestWithRetry(request, {
      signal: ctx.signal ?? NEVER_ABORTED,
      secrets: [target.token],
      interpret,
      logger: ctx.logger,
      policy: { attempts: target.config.retryAttempts ?? 3, baseDelayMs: target.config.retryBaseMs ?? 500, maxDelayMs: 10_000 },
    });
  } catch (error) {
    if (ctx.signal?.aborted) throw abortedError(request.label);
    const message = ConnectorError.isInstance(error) ? error.message : String(error);
    throw new BaseToolError(`E_${target.tool.toUpperCase()}_API`, message, { suggestion: `Check the arguments (ids, channel) and that the bot may do this; the ${target.tool} API said why above.` });
  }
}
