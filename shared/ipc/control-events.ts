/**
 * Control traffic is ordinary `event`s addressed to or from `orchestrator` whose type starts with
 * `runtime.` (ARCHITECTURE §2); a control event never becomes a Turn. The control types and their
 * payloads are defined once, in control-protocol.ts.
 */
import { newId } from '../ids.ts';
import type { AgentEvent, EventSource } from '../types/events.ts';

export const ORCHESTRATOR = 'orchestrator';
/** The source of events the orchestrator itself originates (replies, control answers, prompts). */
export const ORCHESTRATOR_SOURCE: EventSource = { kind: 'agent', name: ORCHESTRATOR };

export function isControlEvent(event: AgentEvent): boolean {
  return isControlEventType(event.type);
}

export function isControlEventType(type: string): boolean {
  return type.startsWith('runtime.');
}

/** The correlationId an event answers, if it is a response. */
export function inReplyToOf(event: AgentEvent): string | undefined {
  const value = event.metadata?.inReplyTo;
  return typeof value === 'string' ? value : undefined;
}

export function makeEvent(type: string, source: EventSource, fields: Partial<Omit<AgentEvent, 'id' | 'type' | 'createdAt' | 'source'>> = {}): AgentEvent {
  return { id: newId('evt'), type, createdAt: new Date().toISOString(), source, ...fields };
}
