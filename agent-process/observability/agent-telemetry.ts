/**
 * OpenTelemetry for an agent process: when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, its
 * runtime events become spans exported over OTLP/HTTP; otherwise nothing is loaded.
 */
import type { RootLogger } from '../../shared/logger.ts';
import { otelSetting } from '../../shared/telemetry/otel-config.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import type { SpanIdentity } from './runtime-event-spans.ts';

export interface AgentTelemetry {
  observe(event: RuntimeEvent): void;
  shutdown(): Promise<void>;
}

export async function startAgentTelemetry(env: Record<string, string | undefined>, who: SpanIdentity & { swarm: string }, logger: RootLogger): Promise<AgentTelemetry | undefined> {
  const setting = otelSetting(env);
  if (!setting.enabled) {
    if ('problem' in setting) logger.warn({ code: 'W_OTEL_PROTOCOL' }, setting.problem);
    return undefined;
  }
  const [{ createOtelSpanSink }, { spansOfRuntimeEvent }] = await Promise.all([import('../../shared/telemetry/otel-span-sink.ts'), import('./runtime-event-spans.ts')]);
  const sink = await createOtelSpanSink(setting.config, {
    'service.name': env.OTEL_SERVICE_NAME?.trim() || 'goondan',
    'goondan.swarm': who.swarm,
    'goondan.agent': who.agent,
    'goondan.instance_key': who.instanceKey,
    'process.pid': process.pid,
  });
  return {
    observe(event) {
      for (const span of spansOfRuntimeEvent(event, who)) sink.record(span);
    },
    shutdown: () => sink.shutdown(),
  };
}
