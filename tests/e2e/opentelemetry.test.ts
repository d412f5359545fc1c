/**
 * OpenTelemetry export through a real daemon: with OTEL_EXPORTER_OTLP_ENDPOINT set, the
 * orchestrator and every agent process export spans over OTLP/HTTP to a collector stand-in on
 * loopback; an A→B→A exchange arrives as one trace (goondan's traceId) with correct parent links
 * and the GenAI semantic-convention attributes. Both protocols: http/json and http/protobuf. A warm
 * spare's rehearsal exports nothing.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Daemon, REPO_ROOT, startDaemon, waitUntil } from './daemon-harness.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/cost');
/** alpha: turn, 2 steps, 2 model calls, 1 tool call; the orchestrator's request; beta: turn, step, model call. */
const EXPECTED_SPANS = 10;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function exchange(protocol: 'http/json' | 'http/protobuf'): Promise<{ spans: ReceivedSpan[]; receiver: OtlpReceiver; traceId: string }> {
  const receiver = startOtlpReceiver();
  cleanups.push(() => receiver.stop());
  const daemon: Daemon = await startDaemon(BUNDLE, {
    args: ['--swarm', 'priced'],
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'goondan-e2e' },
  });
  cleanups.push(async () => {
    await daemon.stop();
    daemon.cleanup();
  });
  const { body } = await daemon.send({ input: 'ask beta hello', instanceKey: `otel-${protocol.replace('/', '-')}` });
  expect(body.output).toBe('beta said: beta got: hello');
  const traceId = String(body.traceId);
  const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
  await waitUntil(() => ofTrace().length >= EXPECTED_SPANS, `${EXPECTED_SPANS} spans of trace ${traceId} at the collector`, 30_000).catch(() => {
    throw new Error(`waited for ${EXPECTED_SPANS} spans of trace ${traceId}; got: ${JSON.stringify(receiver.spans.map((s) => [s.traceId, s.name]))}`);
  });
  return { spans: ofTrace(), receiver, traceId };
}

function checkTrace(spans: ReceivedSpan[]): void {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const parentOf = (s: ReceivedSpan | undefined) => (s?.parentSpanId ? byId.get(s.parentSpanId) : undefined);
  const find = (predicate: (s: ReceivedSpan) => boolean, what: string) => {
    const found = spans.filter(predicate);
    if (found.length === 0) throw new Error(`no span ${what} among ${spans.map((s) => s.name).join(', ')}`);
    return found;
  };

  expect(spans).toHaveLength(EXPECTED_SPANS);
  // Every span but the entry turn has its parent in the trace.
  const roots = spans.filter((s) => !s.parentSpanId);
  expect(roots.map((s) => s.name)).toEqual(['invoke_agent alpha']);
  for (const span of spans) if (span.parentSpanId) expect(byId.has(span.parentSpanId)).toBe(true);

  const [alphaTurn] = roots;
  const alphaSteps = find((s) => s.name.startsWith('step ') && s.attributes['goondan.agent'] === 'alpha', 'alpha step');
  expect(alphaSteps).toHaveLength(2);
  for (const step of alphaSteps) expect(parentOf(step)).toBe(alphaTurn);
  const [tool] = find((s) => s.name === 'execute_tool agents__request', 'tool call');
  expect(parentOf(tool)?.name).toBe('step 0');
  expect(tool?.attributes['gen_ai.tool.name']).toBe('agents__request');
  // The orchestrator's inter-agent request: a child of the tool call, parent of beta's turn.
  const [request] = find((s) => s.name === 'invoke_agent beta' && s.resource['goondan.role'] === 'orchestrator', 'orchestrator request');
  expect(parentOf(request)).toBe(tool);
  expect(request?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'beta', 'goondan.caller.agent': 'alpha' });
  const [betaTurn] = find((s) => s.name === 'invoke_agent beta' && s.resource['goondan.agent'] === 'beta', 'beta turn');
  expect(parentOf(betaTurn)).toBe(request);
  const [betaStep] = find((s) => s.name === 'step 0' && s.attributes['goondan.agent'] === 'beta', 'beta step');
  expect(parentOf(betaStep)).toBe(betaTurn);

  const models = find((s) => s.name === 'chat priced', 'model call');
  expect(models).toHaveLength(3);
  for (const model of models) {
    expect(parentOf(model)?.name).toStartWith('step ');
    expect(model.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'priced', 'gen_ai.provider.name': 'mock', 'goondan.cost.currency': 'USD' });
    expect(model.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(model.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
  }
  // Every span names its agent and instance; agents' spans come from their own processes.
  for (const span of spans) {
    expect(span.attributes['gen_ai.agent.name']).toBe(span.attributes['goondan.agent'] ?? '');
    expect(typeof span.attributes['goondan.instance_key']).toBe('string');
    expect(span.resource['service.name']).toBe('goondan-e2e');
  }
  expect(new Set(spans.map((s) => s.resource['process.pid'])).size).toBe(3);
}

describe('OTLP export of one A→B→A exchange', () => {
  test('http/json: one trace (goondan traceId) across orchestrator and two agent processes, with correct parents and gen_ai attributes', async () => {
    const { spans, receiver } = await exchange('http/json');
    expect([...receiver.contentTypes]).toEqual(['application/json']);
    checkTrace(spans);
    // Warm spares rehearse a turn of an agent before they serve one: none of it is exported.
    expect(receiver.spans.filter((s) => s.attributes['goondan.instance_key'] === 'rehearsal').map((s) => s.name)).toEqual([]);
  });

  test('http/protobuf (the default protocol) carries the same trace', async () => {
    const { spans, receiver } = await exchange('http/protobuf');
    expect([...receiver.contentTypes]).toEqual(['application/x-protobuf']);
    checkTrace(spans);
  });
});
