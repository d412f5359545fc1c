/**
 * The HTTP control and ingress API (ARCHITECTURE §6) on Bun.serve. Loopback by default; any other
 * host requires GOONDAN_API_TOKEN, and a configured token is then required on every route but the
 * health probes.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Server } from 'bun';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { ExternalSubmission } from '../routing/router.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import { errorResponse, jsonResponse } from './http-errors.ts';
import { readJsonBody, validateSubmitEventBody } from './request-body.ts';

export interface ProcessRow extends JsonObject {
  kind: string;
  agent: string | null;
  connection: string | null;
  instanceKey: string;
  pid: number | null;
  status: string;
  crashes: number;
  restarts: number;
  rss: number | null;
  startedAt: string | null;
}

/** What the API needs from the daemon (kept narrow so the server stays one concept). */
export interface DaemonApi {
  isReady(): boolean;
  entryAgent(): string;
  isKnownAgent(name: string): boolean;
  processes(): Promise<ProcessRow[]>;
  submit(submission: ExternalSubmission): { eventId: string; traceId: string; reply?: Promise<ReplyOutcome> };
  runtimeEvents: RuntimeEventBus;
  metricsText(): Promise<string>;
  deleteInstance(instanceKey: string): Promise<JsonObject>;
  /** Extra routes contributed by other features (e.g. tool approvals). */
  extraRoutes?: Array<{ method: string; pattern: RegExp; handle(request: Request, match: RegExpMatchArray): Promise<Response> }>;
}

export interface ApiServerOptions {
  host: string;
  port: number;
  token?: string;
  logger: RootLogger;
  daemon: DaemonApi;
}

export const DEFAULT_INSTANCE_KEY = 'default';
const SSE_HEARTBEAT_MS = 15_000;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export class ApiConfigError extends Error {
  override name = 'ApiConfigError';
}

export function startApiServer(options: ApiServerOptions): Server<undefined> {
  const { daemon, logger } = options;
  if (!isLoopbackHost(options.host) && !options.token) {
    throw new ApiConfigError(
      `refusing to listen on non-loopback host '${options.host}' without GOONDAN_API_TOKEN; set it (every request must then send 'Authorization: Bearer <token>') or use --host 127.0.0.1`,
    );
  }
  const expected = options.token ? Buffer.from(options.token) : undefined;
  const authorized = (request: Request): boolean => {
    if (!expected) return true;
    const header = request.headers.get('authorization') ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.method === 'GET' && path === '/healthz') return jsonResponse(200, { status: 'ok' });
    if (request.method === 'GET' && path === '/readyz') {
      return daemon.isReady() ? jsonResponse(200, { status: 'ready' }) : jsonResponse(503, { status: 'starting' });
    }
    if (!authorized(request)) return errorResponse(401, 'E_HTTP_UNAUTHORIZED', "missing or wrong bearer token; send 'Authorization: Bearer <GOONDAN_API_TOKEN>'");
    if (request.method === 'GET' && path === '/v1/processes') return jsonResponse(200, { processes: await daemon.processes() });
    if (request.method === 'POST' && path === '/v1/events') return submitEvent(request, daemon);
    if (request.method === 'GET' && path === '/v1/events/stream') return eventStream(url, daemon.runtimeEvents);
    if (request.method === 'GET' && path === '/metrics') {
      return new Response(await daemon.metricsText(), { headers: { 'content-type': 'text/plain; version=0.0.4' } });
    }
    const instanceMatch = /^\/v1\/instances\/([^/]+)$/.exec(path);
    if (request.method === 'DELETE' && instanceMatch?.[1]) return jsonResponse(200, await daemon.deleteInstance(decodeURIComponent(instanceMatch[1])));
    for (const route of daemon.extraRoutes ?? []) {
      const match = path.match(route.pattern);
      if (match && request.method === route.method) return route.handle(request, match);
    }
    return errorResponse(404, 'E_HTTP_NOT_FOUND', `no route for ${request.method} ${path}`);
  };

  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    // SSE streams stay open far longer than Bun's default 10 s idle timeout.
    idleTimeout: 0,
    fetch: async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        logger.error({ err: error, url: request.url }, 'HTTP handler failed');
        return errorResponse(500, 'E_HTTP_INTERNAL', 'internal error; see the daemon log');
      }
    },
  });
  return server;
}

async function submitEvent(request: Request, daemon: DaemonApi): Promise<Response> {
  const body = await readJsonBody(request, validateSubmitEventBody);
  if (!body.ok) return body.response;
  const { input, wait = true, timeoutMs, traceId, metadata } = body.value;
  const agent = body.value.agent ?? daemon.entryAgent();
  if (!daemon.isKnownAgent(agent)) {
    return errorResponse(404, 'E_HTTP_UNKNOWN_AGENT', `agent '${agent}' is not part of the running swarm`, { path: '/agent' });
  }
  const submission: ExternalSubmission = {
    agent,
    instanceKey: body.value.instanceKey ?? DEFAULT_INSTANCE_KEY,
    input,
    source: { kind: 'api', name: 'http' },
    wait,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(traceId !== undefined ? { traceId } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  };
  const submitted = daemon.submit(submission);
  if (!submitted.reply) return jsonResponse(202, { eventId: submitted.eventId, traceId: submitted.traceId });
  const outcome = await submitted.reply;
  const result: JsonObject = {
    status: outcome.status,
    output: outcome.output,
    turnId: outcome.turnId ?? null,
    traceId: outcome.traceId ?? submitted.traceId,
    eventId: submitted.eventId,
  };
  if (outcome.errorCode) result.error = { code: outcome.errorCode, message: outcome.errorMessage ?? '' };
  return jsonResponse(200, result);
}

function eventStream(url: URL, bus: RuntimeEventBus): Response {
  const filters = {
    agent: url.searchParams.get('agent'),
    instanceKey: url.searchParams.get('instanceKey'),
    traceId: url.searchParams.get('traceId'),
  };
  const accepts = (e: RuntimeEvent) =>
    (!filters.agent || e.agentName === filters.agent) &&
    (!filters.instanceKey || e.instanceKey === filters.instanceKey) &&
    (!filters.traceId || e.traceId === filters.traceId);
  let unsubscribe = () => {};
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(': goondan runtime events\n\n'));
      unsubscribe = bus.subscribe((event) => {
        if (accepts(event)) controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
      });
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(': keep-alive\n\n')), SSE_HEARTBEAT_MS);
    },
    cancel() {
      unsubscribe();
      if (heartbeat) clearInterval(heartbeat);
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
