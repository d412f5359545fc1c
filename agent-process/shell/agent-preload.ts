/**
 * A bare agent process loads what the orchestrator says its swarm uses (shared/ipc/agent-preload.ts)
 * before `runtime.ready`. Best effort: anything that fails to load here is loaded again, and its
 * error reported with the agent's name, when the agent starts.
 */
import { AGENT_PRELOAD_ENV, isAgentPreload } from '../../shared/ipc/agent-preload.ts';
import { preloadProvider } from '../models/create-language-model.ts';

export async function preloadAgentModules(env: Record<string, string | undefined> = process.env): Promise<void> {
  const raw = env[AGENT_PRELOAD_ENV];
  if (!raw) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return;
  }
  if (!isAgentPreload(parsed)) return;
  await Promise.allSettled([...parsed.modules.map((path) => import(path)), ...parsed.providers.map((provider) => preloadProvider(provider))]);
}
