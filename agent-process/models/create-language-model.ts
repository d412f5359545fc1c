/**
 * One language model per AgentPlan: the provider adapter for `Model.spec.provider` (AI SDK
 * `@ai-sdk/*`, or the built-in `mock`) and the settings of every model call — retries, provider
 * options and the Agent's `modelConfig.params`.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { AgentPlan } from '../../shared/types/bundle.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { EngineError } from '../engine/engine-error.ts';
import { createMockLanguageModel } from './mock/mock-language-model.ts';
import { DEFAULT_MAX_RETRIES, parseModelOptions } from './model-options.ts';
import { networkRetryFetch } from './network-retry-fetch.ts';
import { throttleReportingFetch } from './throttle-reporting-fetch.ts';

export interface ModelCallSettings {
  maxRetries: number;
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  providerOptions?: Record<string, JsonObject>;
}

export interface ResolvedModel {
  /** Model resource name (for messages). */
  name: string;
  model: LanguageModelV3;
  settings: ModelCallSettings;
}

/** Provider env vars used when the Model has no apiKey and the engine got its own env. */
const API_KEY_ENV: Record<string, string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
};

/** The provider adapters, each imported only by agents whose Model names it. */
const PROVIDER_MODULES = {
  openai: () => import('@ai-sdk/openai'),
  anthropic: () => import('@ai-sdk/anthropic'),
  google: () => import('@ai-sdk/google'),
  'openai-compatible': () => import('@ai-sdk/openai-compatible'),
};

/** Loads a provider's adapter ahead of need (a warm spare of a swarm that uses it); unknown names are ignored. */
export async function preloadProvider(provider: string): Promise<void> {
  if (isProviderName(provider)) await PROVIDER_MODULES[provider]();
}

function isProviderName(name: string): name is keyof typeof PROVIDER_MODULES {
  return Object.hasOwn(PROVIDER_MODULES, name);
}

/**
 * Provider packages are imported on demand: each costs 20–130 ms and 10–30 MB at start-up, and an
 * agent process only ever needs the one its Model names.
 */
export async function createLanguageModel(
  plan: AgentPlan,
  env: Record<string, string | undefined> = process.env,
  /** A provider 429 with Retry-After (the orchestrator pauses the Model for every agent). */
  onThrottled?: (retryAfterMs: number) => void,
): Promise<ResolvedModel> {
  const spec = plan.model;
  const settings = callSettingsOf(plan);
  if (spec.provider === 'mock') {
    const model = createMockLanguageModel({ modelName: spec.name, modelId: spec.model, agentName: plan.name, options: spec.options });
    return { name: spec.name, model, settings: { ...settings, maxRetries: 0 } };
  }

  const { options, factory } = parseModelOptions(spec.name, spec.options);
  settings.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (options.providerOptions) settings.providerOptions = options.providerOptions;
  const envKey = API_KEY_ENV[spec.provider];
  const apiKey = spec.apiKey ?? (envKey === undefined ? undefined : env[envKey]);
  const common = {
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(spec.endpoint !== undefined ? { baseURL: spec.endpoint } : {}),
    fetch: onThrottled ? throttleReportingFetch(networkRetryFetch, onThrottled) : networkRetryFetch,
  };

  switch (spec.provider) {
    case 'openai': {
      const { createOpenAI } = await PROVIDER_MODULES.openai();
      return { name: spec.name, model: createOpenAI({ ...factory, ...common })(spec.model), settings };
    }
    case 'anthropic': {
      const { createAnthropic } = await PROVIDER_MODULES.anthropic();
      return { name: spec.name, model: createAnthropic({ ...factory, ...common })(spec.model), settings };
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await PROVIDER_MODULES.google();
      return { name: spec.name, model: createGoogleGenerativeAI({ ...factory, ...common })(spec.model), settings };
    }
    case 'openai-compatible': {
      if (spec.endpoint === undefined) {
        throw new EngineError({
          code: 'E_MODEL_CONFIG',
          message: `Model '${spec.name}': provider openai-compatible needs spec.endpoint (the server's base URL, e.g. http://127.0.0.1:11434/v1)`,
          suggestion: 'Set spec.endpoint on the Model resource.',
        });
      }
      const { createOpenAICompatible } = await PROVIDER_MODULES['openai-compatible']();
      // Usage arrives in a streamed answer only when asked for (`stream_options.include_usage`).
      const provider = createOpenAICompatible({ includeUsage: true, ...factory, ...common, baseURL: spec.endpoint, name: factory.name ?? 'openai-compatible' });
      return { name: spec.name, model: provider.chatModel(spec.model), settings };
    }
    default:
      throw new EngineError({
        code: 'E_MODEL_CONFIG',
        message: `Model '${spec.name}': unknown provider '${String(spec.provider)}'`,
        suggestion: 'Use one of openai, anthropic, google, openai-compatible, mock.',
      });
  }
}

function callSettingsOf(plan: AgentPlan): ModelCallSettings {
  const settings: ModelCallSettings = { maxRetries: DEFAULT_MAX_RETRIES };
  const params = plan.modelParams;
  if (params.temperature !== undefined) settings.temperature = params.temperature;
  if (params.maxTokens !== undefined) settings.maxOutputTokens = params.maxTokens;
  if (params.topP !== undefined) settings.topP = params.topP;
  return settings;
}
