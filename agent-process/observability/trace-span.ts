/**
 * Spans of the turn → step → tool chain (SPEC.md §3.2): the traceId is kept from the input event
 * (never regenerated), every turn, step and tool call gets a new 16-hex spanId, and the turn's
 * parent is the span that caused the event (the caller's tool call).
 */
import { newSpanId, newTraceId, TRACE_ID_PATTERN, SPAN_ID_PATTERN } from '../../shared/ids.ts';
import type { AgentEvent } from '../../shared/types/events.ts';

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startedAt: number;
}

export function turnSpan(event: AgentEvent): Span {
  const traceId = event.traceId !== undefined && TRACE_ID_PATTERN.test(event.traceId) ? event.traceId : newTraceId();
  const span: Span = { traceId, spanId: newSpanId(), startedAt: performance.now() };
  if (event.parentSpanId !== undefined && SPAN_ID_PATTERN.test(event.parentSpanId)) span.parentSpanId = event.parentSpanId;
  return span;
}

export function childSpan(parent: Span): Span {
  return { traceId: parent.traceId, spanId: newSpanId(), parentSpanId: parent.spanId, startedAt: performance.now() };
}

/** Milliseconds since the span started (fractional). */
export function elapsed(span: Span): number {
  return performance.now() - span.startedAt;
}

/** The fields every runtime event of this span carries. */
export function spanFields(span: Span): { traceId: string; spanId: string; parentSpanId?: string } {
  return span.parentSpanId === undefined
    ? { traceId: span.traceId, spanId: span.spanId }
    : { traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId };
}
