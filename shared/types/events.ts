/**
 * Events that travel between processes (SPEC.md §2.5, tool spec §11.2) and the trace context they
 * carry (SPEC.md §3.2).
 */
import type { ErrorShape } from '../errors/error-shape-type.ts';
import type { JsonObject, JsonValue } from './json.ts';

/** W3C-style trace ids: traceId 32 hex chars, spanId 16 hex chars, crypto-random. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

export interface EventSource {
  kind: 'agent' | 'connector' | 'api' | 'cli';
  name: string;
  /** Connector event properties (chat_id, …) and other extras live here. */
  [key: string]: JsonValue;
}

export interface ReplyChannel {
  /** Agent name of the requester (or 'orchestrator' for HTTP / CLI callers). */
  target: string;
  correlationId: string;
}

export interface TurnAuth {
  principal?: { type: string; id: string; [key: string]: JsonValue };
  [key: string]: JsonValue | undefined;
}

/**
 * The single unit of work and of inter-process communication. A request carries `replyTo`; a
 * response carries `metadata.inReplyTo = correlationId` (ARCHITECTURE §2).
 */
export interface AgentEvent {
  id: string;
  /** `agent.request`, `agent.send`, `connector.<event>`, `api.input`, … ; `runtime.*` = control. */
  type: string;
  /** ISO-8601 timestamp. */
  createdAt: string;
  /** Created once at first ingress, never regenerated (SPEC.md §3.2). */
  traceId?: string;
  /** Span of whatever caused this event (the caller's tool call); becomes the turn's parentSpanId. */
  parentSpanId?: string;
  input?: string;
  /** Target instance; omitted on inter-agent calls means the caller's own (ARCHITECTURE §5). */
  instanceKey?: string;
  source: EventSource;
  auth?: TurnAuth;
  replyTo?: ReplyChannel;
  metadata?: JsonObject;
}

export type IpcMessageType = 'event' | 'shutdown' | 'shutdown_ack';

/** The only wire format between orchestrator and children: three types, JSON, in order. */
export interface IpcMessage {
  type: IpcMessageType;
  /** Agent name, connection name, or 'orchestrator'. */
  from: string;
  to: string;
  payload: JsonValue;
}

/** `passivate`: the instance was idle past its TTL (or made room); it comes back on its next event. */
export type ShutdownReason = 'restart' | 'config_change' | 'orchestrator_shutdown' | 'passivate';
export interface ShutdownPayload {
  gracePeriodMs: number;
  reason: ShutdownReason;
}

/** Status of a response event (`metadata.status`), also reported to HTTP callers. */
export type ReplyStatus = 'ok' | 'error' | 'timeout';


/**
 * A reply to an `async: true` request, injected into the requester's conversation before its next
 * step (SPEC.md §2.6) with `metadata.__goondanInterAgentResponse`.
 */
export interface InterAgentReply {
  kind: 'inter_agent_response';
  version: 1;
  /** The correlationId of the request. */
  requestId: string;
  requestEventId: string;
  responseEventId?: string;
  fromAgentId: string;
  toAgentId: string;
  async: true;
  status: ReplyStatus;
  /** Reply text ('' on error/timeout). */
  text: string;
  receivedAt: string;
  traceId?: string;
  /** Why the request failed (status error or timeout). */
  error?: ErrorShape;
}
