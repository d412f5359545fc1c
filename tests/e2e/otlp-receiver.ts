/**
 * A stand-in OTLP/HTTP trace collector on loopback: accepts POST /v1/traces as http/json or
 * http/protobuf (decoded here with a small wire-format reader: only the fields the tests look at)
 * and keeps the spans.
 */
import type { Server } from 'bun';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** Resource attributes of the batch the span came in (which process sent it). */
  resource: Record<string, string | number | boolean>;
  /** Content type of the request that carried it. */
  contentType: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  contentTypes: Set<string>;
  stop(): void;
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      if (request.method !== 'POST' || new URL(request.url).pathname !== '/v1/traces') return new Response('not found', { status: 404 });
      const contentType = (request.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      contentTypes.add(contentType);
      const body = new Uint8Array(await request.arrayBuffer());
      if (contentType === 'application/json') {
        spans.push(...spansOfJson(JSON.parse(new TextDecoder().decode(body)), contentType));
        return Response.json({});
      }
      spans.push(...spansOfProtobuf(body, contentType));
      return new Response(new Uint8Array(0), { headers: { 'content-type': 'application/x-protobuf' } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, spans, contentTypes, stop: () => server.stop(true) };
}

// ── http/json ─────────────────────────────────────────────────────────────

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonKeyValue[];
}
interface JsonBody {
  resourceSpans: Array<{ resource?: { attributes?: JsonKeyValue[] }; scopeSpans: Array<{ spans: JsonSpan[] }> }>;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? '';
  }
  return out;
}

function spansOfJson(body: JsonBody, contentType: string): ReceivedSpan[] {
  return body.resourceSpans.flatMap((rs) => {
    const resource = jsonAttributes(rs.resource?.attributes);
    return rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        attributes: jsonAttributes(s.attributes),
        resource,
        contentType,
      })),
    );
  });
}

// ── http/protobuf (opentelemetry/proto/collector/trace/v1) ───────────────

type Field = { field: number; wire: number; value: bigint | Uint8Array };

function* fields(bytes: Uint8Array): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++] ?? 0;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) yield { field, wire, value: varint() };
    else if (wire === 1) {
      yield { field, wire, value: bytes.slice(at, at + 8) };
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      yield { field, wire, value: bytes.slice(at, at + length) };
      at += length;
    } else if (wire === 5) {
      yield { field, wire, value: bytes.slice(at, at + 4) };
      at += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

const bytesOf = (f: Field) => (f.value instanceof Uint8Array ? f.value : new Uint8Array(0));
const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const text = (b: Uint8Array) => new TextDecoder().decode(b);

function protoKeyValues(list: Uint8Array[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list) {
    let key = '';
    let value: string | number | boolean = '';
    for (const f of fields(kv)) {
      if (f.field === 1) key = text(bytesOf(f));
      if (f.field === 2) {
        for (const v of fields(bytesOf(f))) {
          if (v.field === 1) value = text(bytesOf(v));
          if (v.field === 2) value = v.value === 1n;
          if (v.field === 3) value = Number(v.value);
          if (v.field === 4) value = new DataView(bytesOf(v).buffer).getFloat64(0, true);
        }
      }
    }
    out[key] = value;
  }
  return out;
}

function spansOfProtobuf(body: Uint8Array, contentType: string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of fields(body)) {
    if (resourceSpans.field !== 1) continue;
    let resource: Record<string, string | number | boolean> = {};
    const scopes: Uint8Array[] = [];
    for (const f of fields(bytesOf(resourceSpans))) {
      if (f.field === 1) resource = protoKeyValues([...fields(bytesOf(f))].filter((a) => a.field === 1).map(bytesOf));
      if (f.field === 2) scopes.push(bytesOf(f));
    }
    for (const scope of scopes) {
      for (const s of fields(scope)) {
        if (s.field !== 2) continue;
        const span: ReceivedSpan = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, attributes: {}, resource, contentType };
        const attributes: Uint8Array[] = [];
        for (const f of fields(bytesOf(s))) {
          if (f.field === 1) span.traceId = hex(bytesOf(f));
          if (f.field === 2) span.spanId = hex(bytesOf(f));
          if (f.field === 4) span.parentSpanId = hex(bytesOf(f));
          if (f.field === 5) span.name = text(bytesOf(f));
          if (f.field === 6) span.kind = Number(f.value);
          if (f.field === 9) attributes.push(bytesOf(f));
        }
        span.attributes = protoKeyValues(attributes);
        out.push(span);
      }
    }
  }
  return out;
}
