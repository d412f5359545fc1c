/**
 * OpenTelemetry is opt-in: nothing of it is loaded unless an OTLP endpoint is set, and only the
 * protocols goondan exports with are accepted.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { otelSetting } from '../../shared/telemetry/otel-config.ts';
import { retryAfterMs } from '../../agent-process/models/throttle-reporting-fetch.ts';

const PROBE = join(import.meta.dir, '../fixtures/telemetry/load-probe.ts');

async function probe(env: Record<string, string>): Promise<{ loaded: number; agent: boolean; orchestrator: boolean }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const proc = Bun.spawn([process.execPath, PROBE], { env: { ...clean, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
  if (code !== 0) throw new Error(`load probe exited ${code}: ${err}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
}

describe('nothing is loaded without an OTLP endpoint', () => {
  test('with no OTEL_EXPORTER_OTLP_* endpoint, daemon and agent modules load no OpenTelemetry SDK or exporter module', async () => {
    expect(await probe({})).toEqual({ loaded: 0, agent: false, orchestrator: false });
  });

  test('with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, both start an exporter (the SDK is loaded then)', async () => {
    const result = await probe({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces' });
    expect(result.agent && result.orchestrator).toBe(true);
    expect(result.loaded).toBeGreaterThan(0);
  });
});

describe('otelSetting', () => {
  test('either endpoint variable turns export on; http/protobuf is the default protocol', () => {
    expect(otelSetting({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ enabled: true, config: { protocol: 'http/protobuf', scheduledDelayMillis: 5000 } });
    expect(otelSetting({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' })).toEqual({
      enabled: true,
      config: { protocol: 'http/json', scheduledDelayMillis: 100 },
    });
  });

  test('no endpoint, an empty one, or OTEL_SDK_DISABLED=true: off', () => {
    expect(otelSetting({})).toEqual({ enabled: false });
    expect(otelSetting({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toEqual({ enabled: false });
    expect(otelSetting({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toEqual({ enabled: false });
  });

  test('grpc is refused with a reason (W_OTEL_PROTOCOL is logged), not silently exported as something else', () => {
    const setting = otelSetting({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' });
    expect(setting.enabled).toBe(false);
    expect('problem' in setting ? setting.problem : '').toContain("'grpc' is not supported");
  });
});

describe('Retry-After of a provider 429', () => {
  test('retry-after-ms, Retry-After seconds and an HTTP date are read; garbage is ignored', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500' }))).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});
