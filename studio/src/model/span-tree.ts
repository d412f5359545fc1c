/**
 * One trace's runtime events as a tree of spans (the Trace view's waterfall): turn → step →
 * model call / tool call → the callee's turn (its `parentSpanId` is the caller's tool span). A
 * span without its end event is still running. Pure: no DOM, unit-tested.
 */
import type { RuntimeEvent } from '../../../shared/types/turns.ts';

export type SpanKind = 'turn' | 'step' | 'model' | 'tool';

export interface Span {
  id: string;
  parentId: string | undefined;
  kind: SpanKind;
  name: string;
  agent: string;
  instanceKey: string;
  /** Epoch milliseconds. */
  start: number;
  /** Undefined while running. */
  end: number | undefined;
  status: 'running' | 'ok' | 'error';
  /** What the details panel shows (ids, token usage, args, errors). */
  details: Record<string, unknown>;
  children: Span[];
}

export interface SpanTree {
  roots: Span[];
  start: number;
  end: number;
}

const ms = (iso: string) => Date.parse(iso);

export function buildSpanTree(events: readonly RuntimeEvent[], now: number = Date.now()): SpanTree {
  const spans = new Map<string, Span>();
  const open = (event: RuntimeEvent, kind: SpanKind, name: string, details: Record<string, unknown>): Span => {
    const existing = spans.get(event.spanId);
    if (existing) {
      Object.assign(existing.details, details);
      return existing;
    }
    const span: Span = {
      id: event.spanId,
      parentId: event.parentSpanId,
      kind,
      name,
      agent: event.agentName,
      instanceKey: event.instanceKey,
      start: ms(event.timestamp),
      end: undefined,
      status: 'running',
      details: { spanId: event.spanId, ...details },
      children: [],
    };
    spans.set(span.id, span);
    return span;
  };
  const close = (span: Span, event: RuntimeEvent, failed: boolean, details: Record<string, unknown>) => {
    span.end = ms(event.timestamp);
    // An end seen without its start (a tail of the log): place the start from the duration.
    if ('duration' in event && span.details.started !== true) span.start = span.end - event.duration;
    span.status = failed ? 'error' : 'ok';
    Object.assign(span.details, details);
  };
  for (const event of events) {
    switch (event.type) {
      case 'turn.started':
        open(event, 'turn', `${event.agentName} turn`, { started: true, turnId: event.turnId, eventId: event.eventId });
        break;
      case 'turn.completed':
      case 'turn.failed': {
        const span = open(event, 'turn', `${event.agentName} turn`, { turnId: event.turnId });
        const failed = event.type === 'turn.failed' || event.finishReason === 'error';
        close(span, event, failed, {
          stepCount: event.stepCount,
          duration: event.duration,
          ...(event.type === 'turn.completed' ? { finishReason: event.finishReason, tokenUsage: event.tokenUsage } : { error: event.error }),
        });
        break;
      }
      case 'step.started':
        open(event, 'step', `step ${event.stepIndex}`, { started: true, stepId: event.stepId, stepIndex: event.stepIndex });
        break;
      case 'step.completed':
      case 'step.failed': {
        const span = open(event, 'step', `step ${event.stepIndex}`, { stepId: event.stepId, stepIndex: event.stepIndex });
        close(span, event, event.type === 'step.failed', {
          duration: event.duration,
          ...(event.type === 'step.completed' ? { toolCallCount: event.toolCallCount, modelDuration: event.modelDuration, tokenUsage: event.tokenUsage } : { error: event.error }),
        });
        if (event.type === 'step.completed' && event.modelDuration !== undefined) addModelCall(spans, span, event.modelDuration, event.tokenUsage);
        break;
      }
      case 'tool.called':
        open(event, 'tool', event.toolName, { started: true, toolCallId: event.toolCallId, toolName: event.toolName, args: event.args });
        break;
      case 'tool.completed':
      case 'tool.failed': {
        const span = open(event, 'tool', event.toolName, { toolCallId: event.toolCallId, toolName: event.toolName });
        const failed = event.type === 'tool.failed' || event.status === 'error';
        close(span, event, failed, { duration: event.duration, ...(event.type === 'tool.completed' ? { status: event.status } : {}), ...(event.error ? { error: event.error } : {}) });
        break;
      }
    }
  }
  return assemble(spans, now);
}

/** The model call is the first part of its step (`modelDuration` of the step's duration). */
function addModelCall(spans: Map<string, Span>, step: Span, modelDuration: number, tokenUsage: unknown): void {
  const id = `${step.id}:model`;
  spans.set(id, {
    id,
    parentId: step.id,
    kind: 'model',
    name: 'model call',
    agent: step.agent,
    instanceKey: step.instanceKey,
    start: step.start,
    end: step.start + modelDuration,
    status: 'ok',
    details: { duration: modelDuration, tokenUsage },
    children: [],
  });
}

function assemble(spans: Map<string, Span>, now: number): SpanTree {
  const roots: Span[] = [];
  for (const span of spans.values()) {
    delete span.details.started;
    const parent = span.parentId !== undefined ? spans.get(span.parentId) : undefined;
    if (parent) parent.children.push(span);
    else roots.push(span);
  }
  const byStart = (a: Span, b: Span) => a.start - b.start || kindOrder(a.kind) - kindOrder(b.kind);
  const sortDeep = (list: Span[]) => {
    list.sort(byStart);
    for (const span of list) sortDeep(span.children);
  };
  sortDeep(roots);
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const span of spans.values()) {
    start = Math.min(start, span.start);
    end = Math.max(end, span.end ?? now);
  }
  return roots.length === 0 ? { roots, start: now, end: now } : { roots, start, end: Math.max(end, start + 1) };
}

function kindOrder(kind: SpanKind): number {
  return ['turn', 'step', 'model', 'tool'].indexOf(kind);
}

/** Depth-first, in display order, with each span's depth (0 = a root). */
export function flattenSpans(roots: readonly Span[]): Array<{ span: Span; depth: number }> {
  const rows: Array<{ span: Span; depth: number }> = [];
  const walk = (list: readonly Span[], depth: number) => {
    for (const span of list) {
      rows.push({ span, depth });
      walk(span.children, depth + 1);
    }
  };
  walk(roots, 0);
  return rows;
}
