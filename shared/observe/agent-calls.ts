/**
 * Who called whom, from real traffic: an `agents__request` / `agents__send` / `agents__spawn` tool
 * call names its target agent in `args.target`. Shared by the daemon (the call graph of past
 * traffic) and the studio page (edges added live from the event stream).
 */
import type { RuntimeEvent } from '../types/turns.ts';

export const AGENT_CALL_TOOLS: readonly string[] = ['agents__request', 'agents__send', 'agents__spawn'];

export interface AgentCall {
  from: string;
  to: string;
  tool: string;
}

export function agentCallOf(event: RuntimeEvent): AgentCall | undefined {
  if (event.type !== 'tool.called' || !AGENT_CALL_TOOLS.includes(event.toolName)) return undefined;
  const target = event.args?.target;
  return typeof target === 'string' && target !== '' ? { from: event.agentName, to: target, tool: event.toolName } : undefined;
}

/** One call, whichever process reports it: a turn resumed in a new process reports its calls again. */
export function callIdOf(event: RuntimeEvent): string | undefined {
  return event.type === 'tool.called' ? `${event.traceId}/${event.turnId}/${event.toolCallId}` : undefined;
}

/** Edges keyed `from→to`, with how often and when last. */
export interface CallEdge {
  from: string;
  to: string;
  count: number;
  lastAt: string;
}

export function addCall(edges: Map<string, CallEdge>, call: AgentCall, at: string): void {
  const key = `${call.from}→${call.to}`;
  const edge = edges.get(key);
  if (edge) {
    edge.count += 1;
    if (at > edge.lastAt) edge.lastAt = at;
  } else edges.set(key, { from: call.from, to: call.to, count: 1, lastAt: at });
}
