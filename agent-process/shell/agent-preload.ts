/**
 * A bare agent process loads what the orchestrator says its swarm uses (shared/ipc/agent-preload.ts)
 * before `runtime.ready`; a warm spare then also rehearses (agent-rehearsal.ts). Best effort:
 * anything that fails to load here is loaded again, and its error reported with the agent's name,
 * when the agent starts.
 */
import { createDeferredLogger } from '../../shared/deferred-logger.ts';
import { AGENT_PRELOAD_ENV, AGENT_SPARE_ENV, isAgentPreload } from '../../shared/ipc/agent-preload.ts';
import { preloadProvider } from '../models/create-language-model.ts';
import { importEntryModule } from '../tools/entry-module.ts';
import { rehearseAgent } from './agent-rehearsal.ts';

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
  await Promise.allSettled([...parsed.modules.map((path) => importEntryModule(path)), ...parsed.providers.map((provider) => preloadProvider(provider))]);
  // Only a spare: a cold start's assignment is already waiting.
  if (!parsed.rehearsal || env[AGENT_SPARE_ENV] !== '1') return;
  const started = performance.now();
  const rehearsed = await rehearseAgent(parsed.rehearsal);
  // Not yet an agent instance: its lines carry no agent and instanceKey, so they are not named 'agent'.
  createDeferredLogger({ name: 'agent-spare' }).debug({ rehearsed, ms: Math.round(performance.now() - started) }, rehearsed ? 'warm spare rehearsed a turn' : 'warm spare could not rehearse; it stays cold');
}
