/**
 * Control traffic is ordinary `event`s addressed to or from `orchestrator` whose type starts with
 * `runtime.` (ARCHITECTURE §2); a control event never becomes a Turn.
 */
import { newId } from '../ids.ts';
import type { AgentEvent, EventSource } from '../types/events.ts';
import type { JsonObject } from '../types/json.ts';

export const ORCHESTRATOR = 'orchestrator';
/** The source of events the orchestrator itself originates (replies, control answers, prompts). */
export const ORCHESTRATOR_SOURCE: EventSource = { kind: 'agent', name: ORCHESTRATOR };

export const CONTROL = {
  /** child → orchestrator: engine loaded, deliver queued events. */
  ready: 'runtime.ready',
  /** agent → orchestrator: `{eventId}` folded; acknowledges the durable inbox entry. */
  turnCompleted: 'runtime.turn.completed',
  /** agent → orchestrator: `{eventId}` dequeued (status `processing`). */
  turnStarted: 'runtime.turn.started',
  /** agent → orchestrator: a RuntimeEvent for the SSE stream, metrics and `logs`. */
  observe: 'runtime.observe',
  /** agent → orchestrator requests, answered with `runtime.response`. */
  spawn: 'runtime.spawn',
  list: 'runtime.list',
  catalog: 'runtime.catalog',
  /** agent → orchestrator: a tool call needs a human decision; answered with `runtime.response`. */
  approvalRequest: 'runtime.approval.request',
  /** orchestrator → interactive connector: ask the person at the terminal (`metadata` = the approval). */
  approvalPrompt: 'runtime.approval.prompt',
  /** interactive connector → orchestrator: `{id, approved, scope}`. */
  approvalDecision: 'runtime.approval.decision',
  /** agent → orchestrator: restart me after this turn (self-restart tool). */
  restart: 'runtime.restart',
  /** orchestrator → agent: a send could not be routed (`{code, message, eventId}`). */
  error: 'runtime.error',
  /** orchestrator → child: the answer to a control request (`metadata.inReplyTo`). */
  response: 'runtime.response',
  /** connector → orchestrator: started, or failed to start. */
  connectorStarted: 'runtime.connector.started',
  connectorFailed: 'runtime.connector.failed',
  /** warm pool process → orchestrator: modules loaded, waiting for an assignment. */
  poolReady: 'runtime.pool.ready',
  /** orchestrator → warm pool process: become this agent instance (`{args, agentPlan, swarmPlan}`). */
  poolAssign: 'runtime.pool.assign',
} as const;

export function isControlEvent(event: AgentEvent): boolean {
  return event.type.startsWith('runtime.');
}

/** The correlationId an event answers, if it is a response. */
export function inReplyToOf(event: AgentEvent): string | undefined {
  const value = event.metadata?.inReplyTo;
  return typeof value === 'string' ? value : undefined;
}

export function makeEvent(type: string, source: EventSource, fields: Partial<Omit<AgentEvent, 'id' | 'type' | 'createdAt' | 'source'>> = {}): AgentEvent {
  return { id: newId('evt'), type, createdAt: new Date().toISOString(), source, ...fields };
}

export function controlEvent(type: string, from: EventSource, metadata: JsonObject = {}): AgentEvent {
  return makeEvent(type, from, { metadata });
}
