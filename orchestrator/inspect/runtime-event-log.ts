/**
 * The runtime events (`turn.*`, `step.*`, `tool.*`) every instance appends to its
 * `messages/runtime-events.jsonl`, read across the swarm's instances: one trace's events (the
 * studio's waterfall), recent traces, and the call graph of past traffic.
 */
import { type AgentCall, addCall, agentCallOf, type CallEdge, callIdOf } from '../../shared/observe/agent-calls.ts';
import { RUNTIME_EVENT_TYPES, type RuntimeEvent } from '../../shared/types/turns.ts';
import { readJsonLines } from './jsonl-file.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';

/** Listings (recent traces, the call graph) read only this much of each file's end. */
export const TAIL_BYTES = 1_000_000;

const isRuntimeEvent = compiledValidator<RuntimeEvent>({
  options: { strict: false },
  schema: {
    type: 'object',
    required: ['type', 'timestamp', 'agentName', 'instanceKey', 'traceId', 'spanId'],
    properties: {
      type: { enum: [...RUNTIME_EVENT_TYPES] },
      timestamp: { type: 'string' },
      agentName: { type: 'string' },
      instanceKey: { type: 'string' },
      traceId: { type: 'string' },
      spanId: { type: 'string' },
      parentSpanId: { type: 'string' },
    },
  },
});

function eventsOf(files: readonly string[], tailBytes?: number): RuntimeEvent[] {
  const events: RuntimeEvent[] = [];
  for (const file of files) for (const line of readJsonLines(file, tailBytes)) if (isRuntimeEvent(line)) events.push(line);
  return events.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

/** Every event of one trace, across all instances, oldest first. */
export function traceEvents(files: readonly string[], traceId: string): RuntimeEvent[] {
  return eventsOf(files).filter((e) => e.traceId === traceId);
}

export interface TraceSummary {
  traceId: string;
  startedAt: string;
  /** The agent and instance whose turn began the trace (the first turn without a caller in it). */
  agent: string;
  instanceKey: string;
  agents: string[];
  status: 'running' | 'ok' | 'error';
  durationMs: number | null;
  turns: number;
}

/** The latest traces (newest first) in the files' recent history. */
export function recentTraces(files: readonly string[], limit: number): TraceSummary[] {
  const byTrace = new Map<string, RuntimeEvent[]>();
  for (const event of eventsOf(files, TAIL_BYTES)) {
    const list = byTrace.get(event.traceId);
    if (list) list.push(event);
    else byTrace.set(event.traceId, [event]);
  }
  const summaries: TraceSummary[] = [];
  for (const [traceId, events] of byTrace) {
    const spans = new Set(events.map((e) => e.spanId));
    const turns = events.filter((e) => e.type === 'turn.started');
    const root = turns.find((e) => e.parentSpanId === undefined || !spans.has(e.parentSpanId)) ?? events[0];
    if (!root) continue;
    // A turn resumed after a crash or a passivation starts again in a new span but keeps its turnId:
    // it is one turn, which ends with the last end of that turnId.
    const rootTurnId = root.type === 'turn.started' ? root.turnId : undefined;
    const rootEnd = events.findLast((e) => (e.type === 'turn.completed' || e.type === 'turn.failed') && (rootTurnId !== undefined ? e.turnId === rootTurnId : e.spanId === root.spanId));
    const failed = events.some((e) => e.type === 'turn.failed' || e.type === 'step.failed' || e.type === 'tool.failed');
    summaries.push({
      traceId,
      startedAt: root.timestamp,
      agent: root.agentName,
      instanceKey: root.instanceKey,
      agents: [...new Set(events.map((e) => e.agentName))],
      status: failed || rootEnd?.type === 'turn.failed' ? 'error' : rootEnd ? 'ok' : 'running',
      durationMs: rootEnd ? Date.parse(rootEnd.timestamp) - Date.parse(root.timestamp) : null,
      turns: new Set(turns.map((e) => (e.type === 'turn.started' ? e.turnId : e.spanId))).size,
    });
  }
  return summaries.sort((a, b) => b.startedAt.localeCompare(a.startedAt)).slice(0, limit);
}

/** Agent → agent calls seen in the files' recent history. */
export function callEdges(files: readonly string[]): CallEdge[] {
  const edges = new Map<string, CallEdge>();
  // A resumed turn reports its calls again: each call counts once.
  const seen = new Set<string>();
  for (const event of eventsOf(files, TAIL_BYTES)) {
    const call: AgentCall | undefined = agentCallOf(event);
    const id = callIdOf(event);
    if (!call || id === undefined || seen.has(id)) continue;
    seen.add(id);
    addCall(edges, call, event.timestamp);
  }
  return [...edges.values()];
}
