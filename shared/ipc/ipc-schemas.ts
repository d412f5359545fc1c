/**
 * Receipt validation for everything that crosses a process boundary (ARCHITECTURE §2): ajv
 * validators, generated once (shared/validation/compiled-validator.ts); a message that fails is
 * logged and dropped by the receiver, never thrown.
 */
import type { ErrorObject } from 'ajv';
import type { AgentEvent, ShutdownPayload } from '../types/events.ts';
import type { JsonValue } from '../types/json.ts';
import { RUNTIME_EVENT_TYPES, type RuntimeEvent } from '../types/turns.ts';
import { compiledValidator } from '../validation/compiled-validator.ts';

const options = { allErrors: true, strict: false } as const;

const nonEmptyString = { type: 'string', minLength: 1 } as const;

export const agentEventSchema = {
  $id: 'goondan://ipc/agent-event',
  type: 'object',
  required: ['id', 'type', 'createdAt', 'source'],
  properties: {
    id: nonEmptyString,
    type: nonEmptyString,
    createdAt: { type: 'string' },
    traceId: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    parentSpanId: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    input: { type: 'string' },
    instanceKey: nonEmptyString,
    source: {
      type: 'object',
      required: ['kind', 'name'],
      properties: { kind: { enum: ['agent', 'connector', 'api', 'cli'] }, name: { type: 'string' } },
    },
    auth: { type: 'object' },
    replyTo: {
      type: 'object',
      required: ['target', 'correlationId'],
      properties: { target: nonEmptyString, correlationId: nonEmptyString },
      additionalProperties: false,
    },
    metadata: { type: 'object' },
  },
  additionalProperties: false,
} as const;

const ipcMessageSchema = {
  type: 'object',
  required: ['type', 'from', 'to', 'payload'],
  properties: {
    type: { enum: ['event', 'shutdown', 'shutdown_ack'] },
    from: nonEmptyString,
    to: nonEmptyString,
    payload: {},
  },
  additionalProperties: false,
  allOf: [
    { if: { properties: { type: { const: 'event' } } }, then: { properties: { payload: { $ref: 'goondan://ipc/agent-event' } } } },
    {
      if: { properties: { type: { const: 'shutdown' } } },
      then: {
        properties: {
          payload: {
            type: 'object',
            required: ['gracePeriodMs', 'reason'],
            properties: {
              gracePeriodMs: { type: 'number', minimum: 0 },
              reason: { enum: ['restart', 'config_change', 'orchestrator_shutdown', 'passivate'] },
            },
          },
        },
      },
    },
  ],
} as const;

/** An IpcMessage with its payload typed by the message type (what is sent, and what validation yields). */
export type TypedIpcMessage =
  | { type: 'event'; from: string; to: string; payload: AgentEvent }
  | { type: 'shutdown'; from: string; to: string; payload: ShutdownPayload }
  | { type: 'shutdown_ack'; from: string; to: string; payload: JsonValue };

const agentEventValidator = compiledValidator<AgentEvent>({ schema: agentEventSchema, options });
const ipcMessageValidator = compiledValidator<TypedIpcMessage>({ schema: ipcMessageSchema, refs: [agentEventSchema], options });

const count = { type: 'number', minimum: 0 } as const;

// Base fields, and the figures the orchestrator counts (usage, cost); the rest is our engine's own.
const runtimeEventSchema = {
  type: 'object',
  required: ['type', 'timestamp', 'agentName', 'instanceKey', 'traceId', 'spanId'],
  properties: {
    type: { enum: [...RUNTIME_EVENT_TYPES] },
    timestamp: { type: 'string' },
    agentName: nonEmptyString,
    instanceKey: nonEmptyString,
    traceId: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    spanId: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    parentSpanId: { type: 'string' },
    model: { type: 'string' },
    tokenUsage: {
      type: 'object',
      required: ['promptTokens', 'completionTokens', 'totalTokens'],
      properties: { promptTokens: count, completionTokens: count, totalTokens: count, cachedPromptTokens: count },
    },
    cost: { type: 'object', required: ['amount', 'currency'], properties: { amount: count, currency: nonEmptyString } },
  },
  // The fields the orchestrator reads of some types (metrics labels, the usage ledger): without
  // them an event would put an undefined label into /metrics.
  allOf: [
    { if: { properties: { type: { const: 'turn.completed' } } }, then: { required: ['finishReason'], properties: { finishReason: nonEmptyString } } },
    { if: { properties: { type: { const: 'tool.completed' } } }, then: { required: ['toolName', 'status'], properties: { toolName: nonEmptyString, status: nonEmptyString } } },
    { if: { properties: { type: { const: 'tool.failed' } } }, then: { required: ['toolName'], properties: { toolName: nonEmptyString } } },
    { if: { properties: { type: { const: 'step.completed' } }, required: ['tokenUsage'] }, then: { required: ['stepId'], properties: { stepId: nonEmptyString } } },
  ],
} as const;
const runtimeEventValidator = compiledValidator<RuntimeEvent>({ schema: runtimeEventSchema, options });

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}

export function validateIpcMessage(value: unknown): ValidationResult<TypedIpcMessage> {
  return ipcMessageValidator(value) ? { ok: true, value } : { ok: false, problems: describe(ipcMessageValidator.errors) };
}

export function validateRuntimeEvent(value: unknown): ValidationResult<RuntimeEvent> {
  return runtimeEventValidator(value) ? { ok: true, value } : { ok: false, problems: describe(runtimeEventValidator.errors) };
}

export function validateAgentEvent(value: unknown): ValidationResult<AgentEvent> {
  return agentEventValidator(value) ? { ok: true, value } : { ok: false, problems: describe(agentEventValidator.errors) };
}
