/**
 * The HTTP control and ingress API (ARCHITECTURE §6, §7) on Bun.serve. Every route but the health
 * probes (and, unless GOONDAN_API_TOKEN is set, /metrics) needs a credential, also on loopback:
 * the state root's token file or GOONDAN_API_TOKEN (api-credential.ts) — an agent's tool that can
 * reach loopback still cannot act as the daemon. A non-loopback host requires GOONDAN_API_TOKEN.
 * The studio's session cookie counts as a credential, with a CSRF guard on changes; routes marked
 * `public` (the studio's page and its login) need none. Errors are `{error: ErrorShape}` (http-errors.ts),
 * except on the OpenAI-compatible routes, which answer OpenAI's `{error: {message, type, param, code}}`.
 */
import type { Server } from 'bun';
import { type ErrorShape, errorShape, GoondanError, httpStatusOf, isRuntimeErrorCode, RUNTIME_ERRORS, runtimeError } from '../../shared/errors/index.ts';
import { validateInstanceKey } from '../../shared/instance-key.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { EventRecord } from '../delivery/event-ledger.ts';
import type { ExternalSubmission, Submitted } from '../routing/external-submissions.ts';
import type { UsageRow } from '../usage/usage-row.ts';
import { STUDIO_REQUEST_HEADER } from '../studio/studio-sessions.ts';
import { type ApiCredentials, envTokenProblem } from './api-credential.ts';
import { eventStream } from './event-stream.ts';
import { isOpenAiPath, openAiErrorFrom } from './openai/openai-format.ts';
import { openAiRoutes } from './openai/openai-routes.ts';
import { errorBody, errorResponse, jsonResponse, retryAfter } from './http-errors.ts';
import { MAX_BODY_BYTES, readJsonBody, validateRestartBody, validateSubmitEventBody } from './request-body.ts';
import { streamReply } from './stream-reply.ts';
import { followRuntimeEvents, settledOrStop } from './trace-stream.ts';
import { foreignHost, isLoopbackHost } from './loopback-host.ts';

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
  /** The last failure of this process: a start-up error or a crash (`{code, message, at}`). */
  lastError: { code: string; message: string; at: string } | null;
  /** Model usage of this agent instance since the daemon started (null for connectors and warm processes). */
  usage: UsageRow | null;
  /** Cluster mode: the node the process runs on (null on a single node). */
  node: string | null;
  /** Events accepted for this instance and not finished (the running one included); null when not known (connectors, spares, an inbox not loaded). */
  queued: number | null;
}

export interface ApiRoute {
  method: string;
  pattern: RegExp;
  handle(request: Request, match: RegExpMatchArray): Promise<Response>;
  /** Served without a credential (the studio's page shell and its login exchange). */
  public?: boolean;
}

/** What the API needs from the daemon (kept narrow so the server stays one concept). */
export interface DaemonApi {
  isReady(): boolean;
  /** Why it is not ready (the /readyz body): still starting, shutting down, or a cluster node without NATS. */
  notReadyBecause?(): 'starting' | 'stopping' | 'cluster-disconnected';
  entryAgent(): string;
  isKnownAgent(name: string): boolean;
  /** The swarm's agents (the OpenAI-compatible front door lists them as models). */
  agents(): readonly string[];
  processes(): Promise<ProcessRow[]>;
  /** Cluster mode answers a keyed submission after claiming its key for the cluster. */
  submit(submission: ExternalSubmission): Submitted | Promise<Submitted>;
  /** An accepted event's state (`GET /v1/events/{eventId}`). */
  eventRecord(eventId: string): EventRecord | undefined | Promise<EventRecord | undefined>;
  runtimeEvents: RuntimeEventBus;
  metricsText(): Promise<string>;
  deleteInstance(instanceKey: string): Promise<JsonObject>;
  restartInstance(instanceKey: string | undefined, options: { agent?: string; fresh: boolean }): Promise<JsonObject>;
  /** A request body that failed parsing or validation (`goondan_malformed_messages_total{source="http"}`). */
  countMalformedBody(): void;
  /** Extra routes contributed by other features (e.g. tool approvals). */
  extraRoutes?: ApiRoute[];
}

export interface ApiServerOptions {
  host: string;
  port: number;
  /** GOONDAN_API_TOKEN: required for a non-loopback host; when set, /metrics needs it too. */
  envToken?: string;
  /** Every accepted credential (the token file's and GOONDAN_API_TOKEN). */
  credentials: ApiCredentials;
  logger: RootLogger;
  daemon: DaemonApi;
}

export class ApiConfigError extends Error {
  override name = 'ApiConfigError';
}

export function startApiServer(options: ApiServerOptions): Server<undefined> {
  const { daemon, logger } = options;
  if (!isLoopbackHost(options.host) && !options.envToken) {
    throw new ApiConfigError(
      `refusing to listen on non-loopback host '${options.host}' without GOONDAN_API_TOKEN; set it (every request must then send 'Authorization: Bearer <token>') or use --host 127.0.0.1`,
    );
  }
  const weakToken = options.envToken === undefined ? undefined : envTokenProblem(options.envToken, isLoopbackHost(options.host));
  if (weakToken !== undefined) {
    throw new ApiConfigError(`refusing to start: GOONDAN_API_TOKEN ${weakToken}; set a random one, e.g. GOONDAN_API_TOKEN=$(openssl rand -hex 32)`);
  }
  const open = (method: string, path: string) =>
    method === 'GET' && (path === '/healthz' || path === '/readyz' || (path === '/metrics' && !options.envToken));
  const routes = [...coreRoutes(daemon), ...openAiRoutes(daemon)];

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    // The OpenAI-compatible routes answer every error in OpenAI's shape, so its clients can read them.
    const fail = (status: number, code: string, message: string, extra: { suggestion?: string; details?: JsonObject } = {}): Response =>
      isOpenAiPath(path) ? openAiErrorFrom(status, errorShape(code, status < 500 ? 'user' : 'system', message, extra)) : errorResponse(status, code, message, extra);
    const foreign = foreignHost(request, options.host);
    if (foreign !== undefined) {
      return fail(421, 'E_HTTP_HOST_REFUSED', `this daemon listens on loopback and answers only requests for a loopback host, not '${foreign}'`, {
        suggestion: `use http://127.0.0.1:${options.port}/ (or localhost); a daemon for other hosts is started with --host and GOONDAN_API_TOKEN`,
      });
    }
    if (request.method === 'GET' && path === '/healthz') return jsonResponse(200, { status: 'ok' });
    if (request.method === 'GET' && path === '/readyz') {
      return daemon.isReady() ? jsonResponse(200, { status: 'ready' }) : jsonResponse(503, { status: daemon.notReadyBecause?.() ?? 'starting' });
    }
    const allRoutes = [...routes, ...(daemon.extraRoutes ?? [])];
    const found = findRoute(allRoutes, request.method, path);
    if (found?.route.public) return found.route.handle(request, found.match);
    const credential = options.credentials.credentialOf(request);
    if (!open(request.method, path) && !credential) {
      return fail(401, 'E_HTTP_UNAUTHORIZED', 'missing or wrong bearer token', {
        suggestion: "send 'Authorization: Bearer <token>' with the token in <state-root>/runtime/api-token or GOONDAN_API_TOKEN (the goondan CLI does this for you)",
      });
    }
    // The studio's cookie rides along with any request the browser makes: a change needs proof it came from the page.
    if (credential === 'session' && request.method !== 'GET' && request.method !== 'HEAD' && !request.headers.has(STUDIO_REQUEST_HEADER)) {
      return fail(403, 'E_HTTP_CSRF', `a request authorized by the studio session must send the '${STUDIO_REQUEST_HEADER}' header to change anything`, {
        suggestion: 'use the studio page, or send a bearer token',
      });
    }
    if (found) return found.route.handle(request, found.match);
    const allowed = allRoutes.filter((route) => route.pattern.test(path)).map((route) => route.method);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed)].join(', ');
      const response = fail(405, 'E_HTTP_METHOD_NOT_ALLOWED', `${path} does not take ${request.method}; it takes ${allow}`, { suggestion: `use ${allow}` });
      response.headers.set('allow', allow);
      return response;
    }
    return errorResponse(404, 'E_HTTP_NOT_FOUND', `no route for ${request.method} ${path}`);
  };

  return Bun.serve({
    hostname: options.host,
    port: options.port,
    // SSE streams stay open far longer than Bun's default 10 s idle timeout.
    idleTimeout: 0,
    // No route takes more (bodies are read with a bound, shared/http/bounded-body.ts); Bun's default is 128 MB.
    maxRequestBodySize: 8 * MAX_BODY_BYTES,
    fetch: async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        const openAi = isOpenAiPath(new URL(request.url).pathname);
        const body = (status: number, shape: ErrorShape): Response => (openAi ? openAiErrorFrom(status, shape) : errorBody(status, shape));
        if (error instanceof BadPathError) return body(400, errorShape('E_HTTP_BAD_PATH', 'user', error.message, { suggestion: 'percent-encode the path segment as UTF-8 (encodeURIComponent)' }));
        // A failure of the runtime with a code of its own (CLUSTER_UNAVAILABLE, …) keeps its status and words.
        if (GoondanError.isInstance(error) && isRuntimeErrorCode(error.code)) return body(httpStatusOf(error.toJSON()), error.toJSON());
        logger.error({ err: error, url: request.url }, 'HTTP handler failed');
        if (isNoSpace(error)) {
          return body(507, errorShape('E_HTTP_NO_SPACE', 'system', 'the disk of the state root is full: the request was not accepted', {
            suggestion: 'free space on the state root\'s disk (goondan doctor shows it), then send again',
          }));
        }
        return body(500, errorShape('E_HTTP_INTERNAL', 'system', 'internal error; see the daemon log'));
      }
    },
  });
}

function findRoute(routes: ApiRoute[], method: string, path: string): { route: ApiRoute; match: RegExpMatchArray } | undefined {
  for (const route of routes) {
    const match = path.match(route.pattern);
    if (match && method === route.method) return { route, match };
  }
  return undefined;
}

function coreRoutes(daemon: DaemonApi): ApiRoute[] {
  const onReject = () => daemon.countMalformedBody();
  return [
    { method: 'GET', pattern: /^\/v1\/processes$/, handle: async () => jsonResponse(200, { processes: await daemon.processes() }) },
    { method: 'POST', pattern: /^\/v1\/events$/, handle: (request) => submitEvent(request, daemon) },
    { method: 'GET', pattern: /^\/v1\/events\/stream$/, handle: async (request) => eventStream(request, daemon.runtimeEvents) },
    {
      method: 'GET',
      pattern: /^\/v1\/events\/(evt_[A-Za-z0-9_-]+)$/,
      handle: async (_request, match) => {
        const eventId = match[1] ?? '';
        const record = await daemon.eventRecord(eventId);
        if (!record) {
          return errorResponse(404, 'E_HTTP_UNKNOWN_EVENT', `no accepted event '${eventId}'`, {
            suggestion: 'event records are kept for 24 h after their turn settled; check the id POST /v1/events returned',
          });
        }
        return jsonResponse(200, eventRecordBody(record));
      },
    },
    {
      method: 'GET',
      pattern: /^\/metrics$/,
      handle: async () => new Response(await daemon.metricsText(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } }),
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/instances\/([^/]+)$/,
      handle: async (_request, match) => {
        const key = pathSegment(match[1]);
        const problem = validateInstanceKey(key);
        return problem ? badInstanceKey(problem, 'path', daemon) : jsonResponse(200, await daemon.deleteInstance(key));
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/instances\/([^/]+)\/restart$/,
      handle: async (request, match) => {
        const url = new URL(request.url);
        const agent = url.searchParams.get('agent') ?? undefined;
        if (agent !== undefined && !daemon.isKnownAgent(agent)) return unknownAgent(agent, '?agent');
        const freshParam = url.searchParams.get('fresh');
        // ?fresh deletes the instance's state: a misspelt value must not quietly mean 'keep it' (or the reverse).
        if (freshParam !== null && freshParam !== 'true' && freshParam !== 'false') {
          return errorResponse(400, 'E_HTTP_BAD_QUERY', `?fresh must be true or false, got '${freshParam}'`, { details: { path: '?fresh' } });
        }
        const fresh = freshParam === 'true';
        const key = pathSegment(match[1]);
        const problem = validateInstanceKey(key);
        if (problem) return badInstanceKey(problem, 'path', daemon);
        return jsonResponse(200, await daemon.restartInstance(key, { fresh, ...(agent !== undefined ? { agent } : {}) }));
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/restart$/,
      handle: async (request) => {
        const body = await readJsonBody(request, validateRestartBody, onReject, { example: '{"agent": "alpha", "fresh": false} (every field is optional)', emptyIsObject: true });
        if (!body.ok) return body.response;
        const { agent, instanceKey, fresh = false } = body.value;
        if (agent !== undefined && !daemon.isKnownAgent(agent)) return unknownAgent(agent, '/agent');
        const problem = instanceKey === undefined ? undefined : validateInstanceKey(instanceKey);
        if (problem) return badInstanceKey(problem, '/instanceKey', daemon);
        return jsonResponse(200, await daemon.restartInstance(instanceKey, { fresh, ...(agent !== undefined ? { agent } : {}) }));
      },
    },
  ];
}

async function submitEvent(request: Request, daemon: DaemonApi): Promise<Response> {
  const body = await readJsonBody(request, validateSubmitEventBody, () => daemon.countMalformedBody());
  if (!body.ok) return body.response;
  const { input, wait = true, timeoutMs, traceId, metadata, instanceKey, stream = false } = body.value;
  if (stream && !wait) {
    return errorResponse(400, 'E_HTTP_STREAM_WITHOUT_WAIT', 'stream: true streams the reply, so it cannot be combined with wait: false', {
      details: { path: '/stream' },
      suggestion: 'drop wait: false, or drop stream: true and follow GET /v1/events/stream instead',
    });
  }
  if (instanceKey !== undefined) {
    const problem = validateInstanceKey(instanceKey);
    if (problem) return badInstanceKey(problem, '/instanceKey', daemon);
  }
  const agent = body.value.agent ?? daemon.entryAgent();
  if (!daemon.isKnownAgent(agent)) return unknownAgent(agent, '/agent');
  const headerKey = request.headers.get('idempotency-key') ?? undefined;
  if (headerKey !== undefined && body.value.idempotencyKey !== undefined && headerKey !== body.value.idempotencyKey) {
    return errorResponse(400, 'E_HTTP_IDEMPOTENCY_KEY_MISMATCH', 'the Idempotency-Key header and the body field idempotencyKey differ', {
      suggestion: 'send the key once (the header, or idempotencyKey in the body)',
    });
  }
  const idempotencyKey = headerKey ?? body.value.idempotencyKey;
  if (idempotencyKey !== undefined && (idempotencyKey === '' || idempotencyKey.length > 256)) {
    return errorResponse(400, 'E_HTTP_BAD_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1–256 characters', { suggestion: 'use a UUID per logical request' });
  }
  const submitted = await daemon.submit({
    agent,
    input,
    source: { kind: 'api', name: 'http' },
    wait,
    ...(instanceKey !== undefined ? { instanceKey } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(traceId !== undefined ? { traceId } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    ...(stream ? { stream } : {}),
  });
  const replayHeader: Record<string, string> = submitted.replayed ? { 'idempotent-replayed': 'true' } : {};
  // Before any await: the turn may stream its first text before the response starts.
  const events = stream && submitted.reply ? followRuntimeEvents(daemon.runtimeEvents) : undefined;
  // Cluster mode: "accepted" means stored by JetStream; a caller is never told so before.
  const refused = submitted.accepted ? await submitted.accepted.then(() => undefined, (error: unknown) => error) : undefined;
  if (refused !== undefined) {
    events?.stop();
    const code = 'CLUSTER_UNAVAILABLE';
    return errorBody(RUNTIME_ERRORS[code].httpStatus, runtimeError(code, `the cluster did not accept the event: ${refused instanceof Error ? refused.message : String(refused)}`, { eventId: submitted.eventId }));
  }
  if (!submitted.reply) return jsonResponse(202, { eventId: submitted.eventId, traceId: submitted.traceId }, replayHeader);
  if (events) {
    // A 200 that starts streaming tells the caller the event was accepted: only once it is on disk.
    await settledOrStop(submitted.stored, events);
    return streamReply(submitted, events, (outcome) => replyBody(outcome, submitted), replayHeader);
  }
  return replyResponse(await submitted.reply, submitted, replayHeader);
}

function eventRecordBody(record: EventRecord): JsonObject {
  const body: JsonObject = { eventId: record.eventId, status: record.state, agent: record.agent, instanceKey: record.instanceKey, traceId: record.traceId, acceptedAt: record.acceptedAt };
  if (record.reply) {
    const { status, output, turnId, traceId, error } = record.reply;
    body.reply = { status, output, ...(turnId !== undefined ? { turnId } : {}), ...(traceId !== undefined ? { traceId } : {}), ...(error ? { error: { ...error } } : {}) };
  }
  if (record.reason !== undefined) body.reason = record.reason;
  if (record.code !== undefined) body.code = record.code;
  if (record.settledAt !== undefined) body.settledAt = record.settledAt;
  return body;
}

/**
 * A turn's own answer is a 200 with its status (ARCHITECTURE §6), also when the turn failed; a
 * failure where no turn answered (the agent cannot start, crashed, timed out, the daemon stops)
 * is an error status with the error body.
 */
function replyResponse(outcome: ReplyOutcome, submitted: Submitted, headers: Record<string, string>): Response {
  const traceId = outcome.traceId ?? submitted.traceId;
  if (outcome.status !== 'ok' && outcome.turnId === undefined && outcome.error) {
    const status = httpStatusOf(outcome.error);
    return jsonResponse(status, { status: outcome.status, output: '', error: outcome.error, eventId: submitted.eventId, traceId }, { ...headers, ...retryAfter(status, outcome.error) });
  }
  return jsonResponse(200, replyBody(outcome, submitted), headers);
}

/** The body of a turn's reply (also the data of a streamed answer's final `reply` event). */
function replyBody(outcome: ReplyOutcome, submitted: Submitted): JsonObject {
  const result: JsonObject = { status: outcome.status, output: outcome.output, turnId: outcome.turnId ?? null, traceId: outcome.traceId ?? submitted.traceId, eventId: submitted.eventId };
  if (outcome.error) result.error = outcome.error;
  return result;
}

function badInstanceKey(problem: string, path: string, daemon: DaemonApi): Response {
  daemon.countMalformedBody();
  return errorResponse(400, 'E_HTTP_BAD_INSTANCE_KEY', problem, { details: { path }, suggestion: 'use printable characters, at most 256 bytes (UTF-8)' });
}

function unknownAgent(agent: string, path: string): Response {
  return errorResponse(404, 'E_HTTP_UNKNOWN_AGENT', `agent '${agent}' is not part of the running swarm`, {
    details: { path },
    suggestion: 'see GET /v1/processes or the Swarm resource for the agent names',
  });
}

class BadPathError extends Error {}

export function pathSegment(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    throw new BadPathError(`malformed percent-encoding in path segment '${raw ?? ''}'`);
  }
}

/** A write the disk refused (full, or over quota). */
function isNoSpace(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOSPC' || error.code === 'EDQUOT');
}
