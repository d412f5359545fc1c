/**
 * Cluster mode: `GET /v1/events/{id}` on any node. An event's record is kept by the node that
 * accepted it; behind a load balancer the client's poll after a 202 reached another node, which
 * answered 404 for an event that was running. A node that does not hold the record now asks the
 * others over core NATS, and every node answers: with the record, or that it has none.
 *
 * "No accepted event" (404) is said only when every node of the cluster said it has none. A node
 * that does not answer (killed, cut off) may hold the record, and so may every node when this one
 * cannot reach NATS: the answer is then CLUSTER_UNAVAILABLE (503), "unknown, retry" — never a 404 a
 * poller would take for "not accepted" and send the event again under a new key (a second run).
 * So may a node stopped gracefully (membership.ts: its record stays, departed) until it is back: its
 * ledger is on its disk. While one is away, an id no node ever accepted is 503 too — which ids it
 * holds is on that disk alone.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { EventLedger, EventRecord } from '../delivery/event-ledger.ts';
import { GoondanError } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { messageJson } from './kv-json.ts';
import type { Membership } from './membership.ts';
import { serveRequests } from './serve-requests.ts';

/** How long the answers are waited for: every node answers in a round trip. */
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
/** A node's answer: its record of the event, or none. */
const isAnswer = compiledValidator<{ node: string; record?: unknown }>({
  schema: { type: 'object', required: ['node'], properties: { node: { type: 'string', minLength: 1 } } },
});

export interface EventLookupOptions {
  nc: NatsConnection;
  subject: string;
  nodeId: string;
  /** known(): every node live, not heard from lately, or departed — each may hold the record; departed(): those stopped gracefully, not back (named apart in the 503). */
  membership: Pick<Membership, 'known' | 'departed'>;
  /** The bucket an operator removes a retired node's record from (named in the 503). */
  membersBucket: string;
  logger: RootLogger;
}

export class EventLookup {
  constructor(private readonly options: EventLookupOptions) {}

  /**
   * The record from the node that holds it; undefined when every node said it has none. Throws
   * CLUSTER_UNAVAILABLE when that cannot be known (NATS away, a node that does not answer).
   */
  async find(eventId: string): Promise<EventRecord | undefined> {
    const { nc, subject, nodeId } = this.options;
    const members = new Set([...this.options.membership.known(), nodeId]);
    const answered = new Set<string>();
    let found: EventRecord | undefined;
    let failure: unknown;
    try {
      const replies = await nc.requestMany(subject, JSON.stringify({ eventId }), { strategy: 'count', maxMessages: members.size, maxWait: LOOKUP_WAIT_MS });
      for await (const reply of replies) {
        const value = messageJson(reply);
        // A node of an earlier version answers with the bare record (and says nothing without one).
        const record = isAnswer(value) ? value.record : value;
        if (isAnswer(value)) answered.add(value.node);
        if (isRecord(record) && record.eventId === eventId && (!found || settledness(record) > settledness(found))) found = record;
      }
    } catch (error) {
      failure = error;
    }
    if (found) return found;
    if (!answered.has(nodeId)) {
      const why = failure instanceof Error ? failure.message : 'no answer came back';
      throw unknown(eventId, `this node cannot reach the rest of the cluster over NATS (${why}), and another node may have accepted it`);
    }
    const silent = [...members].filter((node) => !answered.has(node)).sort();
    if (silent.length === 0) return undefined;
    const departed = new Set(this.options.membership.departed());
    const gone = silent.filter((node) => departed.has(node));
    const quiet = silent.filter((node) => !departed.has(node));
    const why = [
      ...(quiet.length > 0 ? [`node${quiet.length > 1 ? 's' : ''} ${quiet.join(', ')}, which may have accepted it, did not answer`] : []),
      ...(gone.length > 0 ? [`stopped gracefully and not back: ${gone.join(', ')} (a node's disk holds the records of the events it accepted)`] : []),
    ].join('; ');
    const retire = gone.length > 0 ? `; a node retired for good is forgotten with \`nats kv del ${this.options.membersBucket} NODE\` (its events are then 404)` : '';
    throw unknown(eventId, why, retire, { silent, departed: gone });
  }

  /** Answers every question: with the record when this node's ledger holds it, else that it has none. */
  serve(ledger: EventLedger): Subscription {
    const { nc, subject, nodeId, logger } = this.options;
    return serveRequests(nc, subject, isQuestion, logger, (question, msg) => {
      const record = ledger.get(question.eventId);
      msg.respond(JSON.stringify(record ? { node: nodeId, record } : { node: nodeId }));
    });
  }
}

/** A record further along wins (a node that ran the event may know more than one that queued it). */
function settledness(record: EventRecord): number {
  return { queued: 0, running: 1, done: 2, dead: 2 }[record.state];
}

function unknown(eventId: string, why: string, retire = '', nodes: { silent: string[]; departed: string[] } = { silent: [], departed: [] }): GoondanError {
  return new GoondanError('CLUSTER_UNAVAILABLE', 'system', `whether event '${eventId}' was accepted is unknown here: ${why}`, {
    suggestion: `retry the lookup shortly (the node may be restarting, or its partitions being taken over); do not send the event again under a new Idempotency-Key${retire}`,
    // Which nodes may hold it: those that did not answer, and of them those stopped gracefully.
    details: { eventId, ...(nodes.silent.length > 0 ? nodes : {}) },
  });
}
