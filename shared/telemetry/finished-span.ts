/**
 * A span as goondan knows it once it ended: its ids are goondan's own traceId/spanId (so the
 * OpenTelemetry trace is the one in runtime events and logs), times are epoch milliseconds.
 */
export type SpanKindName = 'internal' | 'server' | 'client';

export type SpanAttributes = Record<string, string | number | boolean>;

export interface FinishedSpan {
  name: string;
  kind: SpanKindName;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startTime: number;
  endTime: number;
  attributes: SpanAttributes;
  /** The span failed: status ERROR with this message. */
  error?: string;
}

export interface SpanSink {
  record(span: FinishedSpan): void;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}
