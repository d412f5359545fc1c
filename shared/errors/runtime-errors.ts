/**
 * The errors the runtime itself produces between processes (SPEC.md §2.6 and the daemon): one
 * place that knows each code's category and what the caller — a person or a model — can do next.
 */
import type { JsonObject } from '../types/json.ts';
import { type ErrorCategory, type ErrorShape, errorShape } from './error-shape.ts';

interface RuntimeErrorInfo {
  category: ErrorCategory;
  suggestion?: string;
  /** HTTP status when no turn ran (a turn's own failure is a 200 with status "error"). */
  httpStatus: number;
}

export const RUNTIME_ERRORS = {
  AGENT_NOT_FOUND: { category: 'user', httpStatus: 404, suggestion: 'call agents__catalog (or GET /v1/processes) to see the agents of the swarm' },
  CIRCULAR_CALL_DETECTED: {
    category: 'user',
    httpStatus: 409,
    suggestion: 'the target is already waiting on this call chain; answer it directly instead of calling back',
  },
  INSTANCE_OUT_OF_SCOPE: {
    category: 'user',
    httpStatus: 403,
    suggestion:
      "address your own instance (leave instanceKey out) or a key under it ('<your key>/<name>'); an instance every agent must reach goes in Swarm.spec.policy.interAgent.sharedInstanceKeys",
  },
  HOP_LIMIT_EXCEEDED: {
    category: 'user',
    httpStatus: 409,
    suggestion: 'agents are passing messages back and forth; answer the caller instead of messaging on, or raise Swarm.spec.policy.interAgent.maxHops',
  },
  AGENT_REQUEST_TIMEOUT: {
    category: 'system',
    httpStatus: 504,
    suggestion:
      'the event is still accepted and runs: read its reply later from GET /v1/events/{eventId} (or send with wait: false from the start); or retry with the same Idempotency-Key and a larger timeoutMs. An agent calling agents__request can pass async: true instead',
  },
  AGENT_CRASHED: { category: 'system', httpStatus: 502, suggestion: 'the agent crashed repeatedly on this event; see `goondan logs` and the daemon log, then rephrase or fix the tool' },
  AGENT_UNAVAILABLE: { category: 'system', httpStatus: 503, suggestion: 'the agent was stopped; the event stays queued and runs when the agent starts again' },
  E_AGENT_START_TIMEOUT: {
    category: 'system',
    httpStatus: 503,
    suggestion: 'the agent did not become ready in time; check the daemon log, or raise Swarm.spec.policy.startupTimeoutSeconds',
  },
  AGENT_TURN_FAILED: { category: 'system', httpStatus: 200 },
  IPC_DELIVERY_FAILED: { category: 'system', httpStatus: 502, suggestion: 'the process that should answer is gone; retry the request' },
  INVALID_REQUEST: { category: 'user', httpStatus: 400, suggestion: 'pass the text for the agent in `input`' },
  BUDGET_EXCEEDED: {
    category: 'user',
    httpStatus: 429,
    suggestion: 'a Swarm.spec.policy.budget limit is reached (details.scope names it): raise that limit or make the request smaller; a per-day limit also resets at 00:00 UTC',
  },
  IDEMPOTENCY_KEY_REUSED: {
    category: 'user',
    httpStatus: 422,
    suggestion: 'send a new key for a new request (a UUID per logical request); a retry must repeat the first request exactly',
  },
  INSTANCE_DELETED: {
    category: 'user',
    httpStatus: 410,
    suggestion: 'the instance was deleted (DELETE /v1/instances/{key}, `goondan instance delete` or `restart --fresh`) before this event ran, and it will not run; send it again to start a new conversation',
  },
  DAEMON_STOPPING: { category: 'system', httpStatus: 503, suggestion: 'the daemon is shutting down; the event stays queued and runs after the next start' },
  CLUSTER_UNAVAILABLE: {
    category: 'system',
    httpStatus: 503,
    suggestion: 'this node cannot reach NATS JetStream (see its log and /readyz); retry, or send to another node of the cluster',
  },
} as const satisfies Record<string, RuntimeErrorInfo>;

export type RuntimeErrorCode = keyof typeof RUNTIME_ERRORS;

export function isRuntimeErrorCode(code: string): code is RuntimeErrorCode {
  return Object.hasOwn(RUNTIME_ERRORS, code);
}

export function runtimeError(code: RuntimeErrorCode, message: string, details?: JsonObject): ErrorShape {
  const info: RuntimeErrorInfo = RUNTIME_ERRORS[code];
  return errorShape(code, info.category, message, {
    ...(info.suggestion !== undefined ? { suggestion: info.suggestion } : {}),
    ...(details !== undefined ? { details } : {}),
  });
}

/** The HTTP status for an error that reached a caller without a turn answering it. */
export function httpStatusOf(error: ErrorShape): number {
  if (isRuntimeErrorCode(error.code)) return RUNTIME_ERRORS[error.code].httpStatus;
  // An agent that cannot start (its tool module, extension or model is broken) is unavailable.
  if (error.details?.phase === STARTUP_PHASE) return 503;
  return error.category === 'user' ? 400 : 502;
}

/** `details.phase` of an error an agent process reported before it could serve (runtime.failed). */
export const STARTUP_PHASE = 'startup';
