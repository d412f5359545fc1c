/**
 * Responses to requests (ARCHITECTURE §2): an event with `metadata.inReplyTo = correlationId`,
 * `metadata.status`, and on failure `errorCode`/`errorMessage`. Built here so the callee, the
 * orchestrator (timeouts, cycles, unknown targets) and every reader agree on the shape.
 */
import type { AgentCallErrorCode, AgentEvent, EventSource, ReplyStatus } from '../types/events.ts';
import type { JsonObject } from '../types/json.ts';
import { makeEvent } from './control-events.ts';

export const RESPONSE_EVENT_TYPE = 'agent.response';

export interface ReplyOutcome {
  status: ReplyStatus;
  /** Reply text ('' on failure). */
  output: string;
  turnId?: string;
  traceId?: string;
  errorCode?: AgentCallErrorCode | string;
  errorMessage?: string;
  /** Extra result data (control responses: spawn/list/catalog results). */
  result?: JsonObject;
}

export function makeReplyEvent(correlationId: string, source: EventSource, outcome: ReplyOutcome, type = RESPONSE_EVENT_TYPE): AgentEvent {
  const metadata: JsonObject = { inReplyTo: correlationId, status: outcome.status };
  if (outcome.turnId) metadata.turnId = outcome.turnId;
  if (outcome.errorCode) metadata.errorCode = outcome.errorCode;
  if (outcome.errorMessage) metadata.errorMessage = outcome.errorMessage;
  if (outcome.result) metadata.result = outcome.result;
  return makeEvent(type, source, { input: outcome.output, metadata, ...(outcome.traceId ? { traceId: outcome.traceId } : {}) });
}

/** Reads a response event back into an outcome. */
export function replyOutcomeOf(event: AgentEvent): ReplyOutcome {
  const meta = event.metadata ?? {};
  const status: ReplyStatus = meta.status === 'error' || meta.status === 'timeout' ? meta.status : 'ok';
  const outcome: ReplyOutcome = { status, output: event.input ?? '' };
  if (typeof meta.turnId === 'string') outcome.turnId = meta.turnId;
  if (event.traceId) outcome.traceId = event.traceId;
  if (typeof meta.errorCode === 'string') outcome.errorCode = meta.errorCode;
  if (typeof meta.errorMessage === 'string') outcome.errorMessage = meta.errorMessage;
  const result = meta.result;
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) outcome.result = result;
  return outcome;
}

export function errorOutcome(code: AgentCallErrorCode, message: string, traceId?: string): ReplyOutcome {
  return { status: code === 'AGENT_REQUEST_TIMEOUT' ? 'timeout' : 'error', output: '', errorCode: code, errorMessage: message, ...(traceId ? { traceId } : {}) };
}
