/**
 * Whether spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
 * set, OTEL_SDK_DISABLED not true) and how. This file imports nothing from OpenTelemetry: the SDK is
 * loaded only when it is needed (otel-span-sink.ts, imported dynamically).
 */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtelConfig {
  protocol: OtlpProtocol;
  /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between two exports. */
  scheduledDelayMillis: number;
}

export type OtelSetting = { enabled: false } | { enabled: true; config: OtelConfig } | { enabled: false; problem: string };

const DEFAULT_SCHEDULE_DELAY_MS = 5_000;

export function otelSetting(env: Record<string, string | undefined>): OtelSetting {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { enabled: false };
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    return { enabled: false, problem: `OTEL_EXPORTER_OTLP_PROTOCOL '${protocol}' is not supported (use http/protobuf or http/json); no spans are exported` };
  }
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  return { enabled: true, config: { protocol, scheduledDelayMillis: Number.isFinite(delay) && delay >= 0 ? delay : DEFAULT_SCHEDULE_DELAY_MS } };
}
