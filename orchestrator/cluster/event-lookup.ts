/**
 * Cluster mode: `GET /v1/events/{id}` on any node. An event's record is kept by the node that
 * accepted it; behind a load balancer the client's poll after a 202 reached another node, which
 * answered 404 for an event that was running. A node that does not hold the record now asks the
 * others over core NATS; the one that holds it answers (the rest stay silent).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { EventLedger, EventRecord } from '../delivery/event-ledger.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { messageJson } from './kv-json.ts';
import { serveRequests } from './serve-requests.ts';

/** How long an unknown id is looked for: a holder answers in a round trip. */
const LOOKUP_WAIT_MS = 1_000;

const isQuestion = compiledValidator<{ eventId: string }>({ schema: { type: 'object', required: ['eventId'], properties: { eventId: { type: 'string', minLength: 1 } } } });
const isRecord = compiledValidator<EventRecord>({
  options: { strict: false },
  schema: {
    type: 'object',
    required: ['eventId', 'state', 'agent', 'instanceKey', 'traceId', 'acceptedAt'],
    properties: { eventId: { type: 'string' }, state: { enum: ['queued', 'running', 'done', 'dead'] }, agent: { type: 'string' }, instanceKey: { type: 'string' }, traceId: { type: 'string' }, acceptedAt: { type: 'string' } },
  },
});

export class EventLookup {
  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly logger: RootLogger,
  ) {}

  /** The record from the node that holds it; undefined when none answers in time (or NATS is away). */
  async find(eventId: string): Promise<EventRecord | undefined> {
    try {
      const answer = messageJson(await this.nc.request(this.subject, JSON.stringify({ eventId }), { timeout: LOOKUP_WAIT_MS }));
      return isRecord(answer) && answer.eventId === eventId ? answer : undefined;
    } catch {
      return undefined;
    }
  }

  /** Answers for the events this node's ledger holds; silent for the others. */
  serve(ledger: EventLedger): Subscription {
    return serveRequests(this.nc, this.subject, isQuestion, this.logger, (question, msg) => {
      const record = ledger.get(question.eventId);
      if (record) msg.respond(JSON.stringify(record));
    });
  }
}
