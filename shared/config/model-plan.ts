/**
 * ModelPlan: the Model with its apiKey read from its ValueSource. The key is required only for a
 * hosted provider with no other way to get one (its SDK's own env var, e.g. OPENAI_API_KEY).
 */
import type { LoadedResource, ModelPlan } from '../types/bundle.ts';
import type { ModelProvider } from '../types/resources.ts';
import type { EnvIssues } from './env-issues.ts';
import { asModel } from './plan-resolver.ts';

/** The variable each hosted provider's SDK reads when no key is passed. */
export const PROVIDER_KEY_ENV: Readonly<Partial<Record<ModelProvider, string>>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
};

export function buildModelPlan(resource: LoadedResource, env: Record<string, string | undefined>, issues: EnvIssues): ModelPlan {
  const model = asModel(resource.resource);
  if (!model) throw new Error(`invariant: ${resource.kind}/${resource.name} is not a Model`);
  const { spec } = model;
  const plan: ModelPlan = {
    name: resource.name,
    provider: spec.provider,
    model: spec.model,
    options: spec.options ?? {},
    capabilities: spec.capabilities ?? {},
  };
  if (spec.endpoint !== undefined) plan.endpoint = spec.endpoint;
  if (spec.pricing !== undefined) plan.pricing = { ...spec.pricing };
  if (spec.rateLimit !== undefined) plan.rateLimit = { ...spec.rateLimit };
  if (spec.apiKey !== undefined) {
    const fallback = PROVIDER_KEY_ENV[spec.provider];
    const required = fallback !== undefined && !env[fallback];
    const apiKey = issues.read(spec.apiKey, env, resource, ['spec', 'apiKey'], required, `apiKey for provider ${spec.provider}`);
    if (apiKey !== undefined) plan.apiKey = apiKey;
  }
  return plan;
}
