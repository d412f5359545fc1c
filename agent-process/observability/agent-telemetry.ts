/**
 * OpenTelemetry for an agent process: when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, its
 * runtime events become spans exported over OTLP/HTTP; otherwise nothing is loaded.
 */
import { join } from 'node:path';
import type { RootLogger } from '../../shared/logger.ts';
import { PACKAGE_ROOT } from '../../shared/package-root.ts';
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
  // By path at run time: a literal import would make the one-file agent build hoist the
  // OpenTelemetry SDK's imports, loading it in every agent (orchestrator/process/agent-bundle.ts).
  const otelSink: typeof import('../../shared/telemetry/otel-span-sink.ts') = await import(join(PACKAGE_ROOT, 'shared/telemetry/otel-span-sink.ts'));
  const { createOtelSpanSink } = otelSink;
  const { spansOfRuntimeEvent } = await import('./runtime-event-spans.ts');
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
