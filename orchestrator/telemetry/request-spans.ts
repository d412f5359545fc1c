/**
 * The orchestrator's spans: one per inter-agent request or send (`invoke_agent <target>`, a child
 * of the caller's tool-call span), open until the reply is routed back. The delivered event names
 * this span as its parent, so the callee's turn hangs under it: caller tool call → request →
 * callee turn, one trace across processes.
 */
import { newSpanId } from '../../shared/ids.ts';
import type { FinishedSpan, SpanAttributes, SpanSink } from '../../shared/telemetry/finished-span.ts';

interface OpenSpan {
  span: Omit<FinishedSpan, 'endTime'>;
}

export class RequestSpans {
  private readonly open = new Map<string, OpenSpan>();

  constructor(private readonly sink: SpanSink) {}

  /**
   * Starts the span of a call from `caller` to `target` and returns its id (the callee turn's parent).
   * With a correlation id it stays open until `end`; a send ends at once.
   */
  begin(call: { traceId: string; parentSpanId?: string; caller: string; callerInstanceKey: string; target: string; targetInstanceKey: string; correlationId?: string }): string {
    const attributes: SpanAttributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': call.target,
      'goondan.agent': call.target,
      'goondan.instance_key': call.targetInstanceKey,
      'goondan.caller.agent': call.caller,
      'goondan.caller.instance_key': call.callerInstanceKey,
      'goondan.call': call.correlationId ? 'request' : 'send',
    };
    const span: OpenSpan['span'] = {
      name: `invoke_agent ${call.target}`,
      kind: 'client',
      traceId: call.traceId,
      spanId: newSpanId(),
      ...(call.parentSpanId ? { parentSpanId: call.parentSpanId } : {}),
      startTime: Date.now(),
      attributes,
    };
    if (call.correlationId) this.open.set(call.correlationId, { span });
    else this.sink.record({ ...span, endTime: Date.now() });
    return span.spanId;
  }

  /** The request was answered (or failed, or timed out). Unknown ids are ignored. */
  end(correlationId: string, error?: string): void {
    const entry = this.open.get(correlationId);
    if (!entry) return;
    this.open.delete(correlationId);
    this.sink.record({ ...entry.span, endTime: Date.now(), ...(error !== undefined ? { error } : {}) });
  }

  async shutdown(): Promise<void> {
    for (const id of [...this.open.keys()]) this.end(id, 'the daemon stopped before the answer');
    await this.sink.shutdown();
  }
}

/** Loads the OpenTelemetry SDK only when spans are exported. */
export async function startRequestSpans(env: Record<string, string | undefined>, swarm: string, warn: (problem: string) => void): Promise<RequestSpans | undefined> {
  const { otelSetting } = await import('../../shared/telemetry/otel-config.ts');
  const setting = otelSetting(env);
  if (!setting.enabled) {
    if ('problem' in setting) warn(setting.problem);
    return undefined;
  }
  const { createOtelSpanSink } = await import('../../shared/telemetry/otel-span-sink.ts');
  const sink = await createOtelSpanSink(setting.config, { 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'goondan', 'goondan.swarm': swarm, 'goondan.role': 'orchestrator', 'process.pid': process.pid });
  return new RequestSpans(sink);
}
