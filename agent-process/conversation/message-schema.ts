/**
 * ajv validators for conversation records: lines read back from `base.jsonl` / `events.jsonl`
 * (a crash can leave a torn last line) and MessageEvents emitted by extensions. The model-message
 * payload is checked only for its envelope; the AI SDK validates the parts at the model call.
 * Upstream extensions build messages with `createdAt: new Date()` (tool spec Appendix A types it
 * `Date`): such an event is accepted with the date as an ISO string (`normalizeMessageEvent`).
 */
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import { describeErrors } from '../../shared/validation/compiled-validator.ts';
import { agentValidator } from '../validation/agent-validator.ts';

const messageSchema = {
  type: 'object',
  required: ['id', 'data', 'metadata', 'createdAt', 'source'],
  properties: {
    id: { type: 'string', minLength: 1 },
    data: {
      type: 'object',
      required: ['role', 'content'],
      properties: {
        role: { enum: ['system', 'user', 'assistant', 'tool'] },
        content: { type: ['string', 'array'] },
      },
    },
    metadata: { type: 'object' },
    createdAt: { type: 'string' },
    source: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: ['user', 'assistant', 'tool', 'system', 'extension'] } },
    },
  },
} as const;

const messageEventSchema = {
  oneOf: [
    { type: 'object', required: ['type', 'message'], properties: { type: { const: 'append' }, message: messageSchema } },
    {
      type: 'object',
      required: ['type', 'targetId', 'message'],
      properties: { type: { const: 'replace' }, targetId: { type: 'string' }, message: messageSchema },
    },
    { type: 'object', required: ['type', 'targetId'], properties: { type: { const: 'remove' }, targetId: { type: 'string' } } },
    { type: 'object', required: ['type'], properties: { type: { const: 'truncate' } } },
  ],
} as const;

const validateMessage = agentValidator<Message>(messageSchema);
const validateMessageEvent = agentValidator<MessageEvent>(messageEventSchema);

export function isMessage(value: unknown): value is Message {
  return validateMessage(value);
}

export function isMessageEvent(value: unknown): value is MessageEvent {
  return validateMessageEvent(value);
}

/** ajv's description of why the last checked event was rejected. */
export function messageEventProblems(): string {
  return describeErrors(validateMessageEvent.errors, 'event');
}

/**
 * An extension's MessageEvent with a `Date` createdAt turned into its ISO string (a copy; the
 * caller's object is not changed). Anything else is returned as it is, for the validator to judge.
 */
export function normalizeMessageEvent(event: unknown): unknown {
  if (typeof event !== 'object' || event === null || !('message' in event)) return event;
  const message = event.message;
  if (typeof message !== 'object' || message === null || !('createdAt' in message) || !(message.createdAt instanceof Date)) return event;
  const time = message.createdAt.getTime();
  // An invalid Date stays a Date, so the validator rejects it instead of toISOString throwing here.
  if (Number.isNaN(time)) return event;
  return { ...event, message: { ...message, createdAt: new Date(time).toISOString() } };
}
