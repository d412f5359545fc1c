/**
 * Seeding a new conversation (the OpenAI-compatible front door): a request's earlier messages
 * travel in `metadata.__seedMessages` and become the history of an instance that has none yet;
 * an instance with history ignores them (its own record is the truth).
 */
import { isJsonObject } from '../../shared/types/json.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { createMessage } from '../conversation/message-factory.ts';
import type { EngineInternals } from './engine-internals.ts';

export const SEED_MESSAGES_KEY = '__seedMessages';

export function seedHistory(engine: EngineInternals, event: AgentEvent): void {
  const seed = event.metadata?.[SEED_MESSAGES_KEY];
  if (!Array.isArray(seed) || hasHistory(engine)) return;
  for (const entry of seed) {
    if (!isJsonObject(entry) || typeof entry.content !== 'string') continue;
    if (entry.role === 'user') engine.append(createMessage({ role: 'user', content: entry.content }, { type: 'user' }, { seeded: true }));
    else if (entry.role === 'assistant') engine.append(createMessage({ role: 'assistant', content: entry.content }, { type: 'assistant', stepId: 'seed' }, { seeded: true }));
  }
}

/** A conversation has history once it holds a user or assistant message (the system prompt does not count). */
function hasHistory(engine: EngineInternals): boolean {
  return engine.conversation.nextMessages.some((message) => message.data.role === 'user' || message.data.role === 'assistant');
}
