/**
 * A bare agent process loads what the orchestrator says its swarm uses (shared/ipc/agent-preload.ts)
 * before `runtime.ready`; a warm spare then also rehearses (agent-rehearsal.ts): the plan the pool
 * primed it with, or else the preload's generic one. Best effort:
 * anything that fails to load here is loaded again, and its error reported with the agent's name,
 * when the agent starts.
 */
import { createDeferredLogger } from '../../shared/deferred-logger.ts';
import { AGENT_PRELOAD_ENV, type AgentPreload, isAgentPreload, isSpare } from '../../shared/ipc/agent-preload.ts';
import { preloadProvider } from '../models/create-language-model.ts';
import { importEntryModule } from '../tools/entry-module.ts';
import { rehearseAgent } from './agent-rehearsal.ts';

export async function preloadAgentModules(env: Record<string, string | undefined> = process.env): Promise<void> {
  const preload = preloadOf(env);
  if (!preload) return;
  await Promise.allSettled([...preload.modules.map((path) => importEntryModule(path)), ...preload.providers.map((provider) => preloadProvider(provider))]);
}

/**
 * A spare's rehearsal of the preload's generic plan: for a spare the pool did not prime as it
 * launched it (child-shell.ts), or whose priming failed.
 */
export async function rehearseSpare(env: Record<string, string | undefined> = process.env): Promise<void> {
  const rehearsal = preloadOf(env)?.rehearsal;
  // Only a spare: a cold start's assignment is already waiting.
  if (!rehearsal || !isSpare(env)) return;
  const started = performance.now();
  const rehearsed = await rehearseAgent(rehearsal);
  // Not yet an agent instance: its lines carry no agent and instanceKey, so they are not named 'agent'.
  createDeferredLogger({ name: 'agent-spare' }).debug({ rehearsed, ms: Math.round(performance.now() - started) }, rehearsed ? 'warm spare rehearsed a turn' : 'warm spare could not rehearse; it stays cold');
}

/** The last variable read and what it said: loading and rehearsing read the same one (up to 64 KiB). */
let lastRead: { raw: string; preload: AgentPreload | undefined } | undefined;

function preloadOf(env: Record<string, string | undefined>): AgentPreload | undefined {
  const raw = env[AGENT_PRELOAD_ENV];
  if (!raw) return undefined;
  if (lastRead?.raw !== raw) lastRead = { raw, preload: parsedPreload(raw) };
  return lastRead.preload;
}

function parsedPreload(raw: string): AgentPreload | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return isAgentPreload(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
