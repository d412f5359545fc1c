/**
 * Spans exported through the official OpenTelemetry JS SDK and OTLP/HTTP exporter (protobuf or
 * JSON; endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables, which the
 * exporter reads itself). Only imported when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set.
 *
 * goondan's ids are kept: the id generator hands the SDK the span's own ids just before it starts
 * the span, and the parent is given as a remote span context.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type IdGenerator, RandomIdGenerator, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { OtelConfig } from './otel-config.ts';
import type { FinishedSpan, SpanAttributes, SpanKindName, SpanSink } from './finished-span.ts';

const KINDS: Record<SpanKindName, SpanKind> = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT };

/** Hands out the next span's preset ids once, random ones otherwise. */
class PresetIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private next: { traceId: string; spanId: string } | undefined;
  preset(traceId: string, spanId: string): void {
    this.next = { traceId, spanId };
  }
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
  clear(): void {
    this.next = undefined;
  }
}

async function createExporter(config: OtelConfig): Promise<SpanExporter> {
  if (config.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}

export async function createOtelSpanSink(config: OtelConfig, resource: SpanAttributes): Promise<SpanSink> {
  const ids = new PresetIds();
  const provider = new TracerProvider({
    idGenerator: ids,
    resource: resourceFromAttributes(resource),
    spanProcessors: [new BatchSpanProcessor({ exporter: await createExporter(config), scheduledDelayMillis: config.scheduledDelayMillis })],
  });
  const tracer = provider.getTracer('goondan');
  return {
    record(span: FinishedSpan): void {
      const parent: Context = span.parentSpanId
        ? trace.setSpanContext(ROOT_CONTEXT, { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true })
        : ROOT_CONTEXT;
      ids.preset(span.traceId, span.spanId);
      const started = tracer.startSpan(span.name, { kind: KINDS[span.kind], startTime: span.startTime, attributes: span.attributes }, parent);
      ids.clear();
      if (span.error !== undefined) started.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
      started.end(span.endTime);
    },
    shutdown: () => provider.shutdown(),
  };
}
