/**
 * Responses to requests (ARCHITECTURE §2): an event with `metadata.inReplyTo = correlationId`,
 * `metadata.status`, `metadata.error` (the one ErrorShape) on failure and `metadata.result` for
 * control answers. Built and read here so the callee, the orchestrator (timeouts, cycles, unknown
 * targets, start failures) and every reader agree on the shape; read back with a schema.
 */
import { type ErrorShape, errorShapeSchema } from '../errors/error-shape.ts';
import { runtimeError, type RuntimeErrorCode } from '../errors/runtime-errors.ts';
import type { AgentEvent, EventSource, ReplyStatus } from '../types/events.ts';
import type { JsonObject } from '../types/json.ts';
import { compiledValidator } from '../validation/compiled-validator.ts';
import type { TokenUsage } from '../types/turns.ts';
import { makeEvent } from './control-events.ts';

export const RESPONSE_EVENT_TYPE = 'agent.response';
/** The type of the orchestrator's answers to control requests (spawn, list, catalog, approvals). */
export const CONTROL_RESPONSE_TYPE = 'runtime.response';

export interface ReplyOutcome {
  status: ReplyStatus;
  /** Reply text ('' on failure). */
  output: string;
  turnId?: string;
  traceId?: string;
  error?: ErrorShape;
  /** Extra result data (control responses: spawn/list/catalog results, approval decisions). */
  result?: JsonObject;
  /** Tokens the answering turn used (summed over its steps). */
  usage?: TokenUsage;
  /**
   * Sent before the answering turn's records reached the disk (`fsync: batch`): whoever acts on it
   * outside the swarm waits for `runtime.reply.synced` (orchestrator/routing/unsynced-replies.ts).
   */
  unsynced?: true;
}

interface ReplyMetadata {
  inReplyTo: string;
  status: ReplyStatus;
  turnId?: string;
  error?: ErrorShape;
  result?: JsonObject;
  usage?: TokenUsage;
  unsynced?: true;
}

const validateReplyMetadata = compiledValidator<ReplyMetadata>({
  refs: [errorShapeSchema],
  options: { allErrors: true, strict: false },
  schema: {
    type: 'object',
    required: ['inReplyTo', 'status'],
    properties: {
      inReplyTo: { type: 'string', minLength: 1 },
      status: { enum: ['ok', 'error', 'timeout'] },
      turnId: { type: 'string' },
      error: { $ref: errorShapeSchema.$id },
      result: { type: 'object' },
      usage: {
        type: 'object',
        required: ['promptTokens', 'completionTokens', 'totalTokens'],
        properties: { promptTokens: { type: 'number' }, completionTokens: { type: 'number' }, totalTokens: { type: 'number' } },
      },
      unsynced: { const: true },
    },
  },
});

export function makeReplyEvent(correlationId: string, source: EventSource, outcome: ReplyOutcome, type = RESPONSE_EVENT_TYPE): AgentEvent {
  const metadata: JsonObject = { inReplyTo: correlationId, status: outcome.status };
  if (outcome.turnId) metadata.turnId = outcome.turnId;
  if (outcome.error) metadata.error = outcome.error;
  if (outcome.result) metadata.result = outcome.result;
  if (outcome.usage) metadata.usage = { ...outcome.usage };
  if (outcome.unsynced) metadata.unsynced = true;
  return makeEvent(type, source, { input: outcome.output, metadata, ...(outcome.traceId ? { traceId: outcome.traceId } : {}) });
}

/** Reads a response event back into an outcome; a malformed one becomes an IPC_DELIVERY_FAILED error. */
export function replyOutcomeOf(event: AgentEvent): ReplyOutcome {
  const meta = event.metadata ?? {};
  if (!validateReplyMetadata(meta)) {
    const problems = (validateReplyMetadata.errors ?? []).map((e) => `${e.instancePath || '(metadata)'} ${e.message ?? ''}`).join('; ');
    return errorOutcome('IPC_DELIVERY_FAILED', `malformed reply ${event.id} from '${event.source.name}': ${problems}`, event.traceId);
  }
  const outcome: ReplyOutcome = { status: meta.status, output: event.input ?? '' };
  if (meta.turnId !== undefined) outcome.turnId = meta.turnId;
  if (event.traceId) outcome.traceId = event.traceId;
  if (meta.error !== undefined) outcome.error = meta.error;
  if (meta.result !== undefined) outcome.result = meta.result;
  if (meta.usage !== undefined) outcome.usage = meta.usage;
  if (meta.unsynced) outcome.unsynced = true;
  if (outcome.status !== 'ok' && !outcome.error) outcome.error = runtimeError('AGENT_TURN_FAILED', `'${event.source.name}' answered with status ${outcome.status}`);
  return outcome;
}

/** The same reply once its turn is on disk: for requesters that would not wait for `runtime.reply.synced`. */
export function syncedReply(event: AgentEvent): AgentEvent {
  if (event.metadata?.unsynced === undefined) return event;
  const { unsynced: _synced, ...metadata } = event.metadata;
  return { ...event, metadata };
}

export function errorOutcome(code: RuntimeErrorCode, message: string, traceId?: string): ReplyOutcome {
  return failureOutcome(runtimeError(code, message), traceId);
}

/** Any error as a failed outcome (timeouts keep their own status). */
export function failureOutcome(error: ErrorShape, traceId?: string): ReplyOutcome {
  return { status: error.code === 'AGENT_REQUEST_TIMEOUT' ? 'timeout' : 'error', output: '', error, ...(traceId ? { traceId } : {}) };
}
