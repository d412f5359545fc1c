/**
 * Durable inboxes on JetStream: one work-queue stream per swarm, a subject per instance under
 * its partition, one durable pull consumer per partition (never one per instance). A published
 * event is accepted once JetStream acknowledged it; the partition's owner pulls it, hands it to
 * local delivery, keeps it alive with in-progress acks while the turn runs, and acks it only after
 * the turn is folded and replicated. A node that dies leaves its messages unacked: after the ack
 * wait they go to whoever pulls the partition next, and an instance's events still go to it in
 * stream order (instance-order.ts).
 */
import { AckPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, JetStreamApiCodes, JetStreamApiError, type JsMsg, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { headers, nanos } from '@nats-io/transport-node';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { agentEventSchema } from '../../shared/ipc/ipc-schemas.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { compiledValidator, describeErrors } from '../../shared/validation/compiled-validator.ts';
import type { ClusterNames } from './cluster-names.ts';
import { ensureStream } from './ensure-stream.ts';
import { InstanceOrder } from './instance-order.ts';
import { messageJson } from './kv-json.ts';
import { retryUntil } from './retry-until.ts';

/** How long a caller may wait for its event to be stored before it is told 503 (the client's own timeout was 5 s). */
const PUBLISH_PATIENCE_MS = 5_000;
const PUBLISH_ATTEMPT_MS = 1_000;
const PUBLISH_RETRY_MS = 200;

/** What travels on an inbox subject: the event plus what the owner needs to route its answer. */
export interface InboxEnvelope {
  target: AgentId;
  /** Name of the sender (agent, connection or API source). */
  from: string;
  kind: 'request' | 'send';
  /** The node whose caller waits for the reply (it holds the pending request). */
  origin: string;
  event: AgentEvent;
}

const isEnvelope = compiledValidator<InboxEnvelope>({
  schema: {
    type: 'object',
    required: ['target', 'from', 'kind', 'origin', 'event'],
    properties: {
      target: { type: 'object', required: ['agent', 'instanceKey'], properties: { agent: { type: 'string', minLength: 1 }, instanceKey: { type: 'string', minLength: 1 } } },
      from: { type: 'string' },
      kind: { enum: ['request', 'send'] },
      origin: { type: 'string', minLength: 1 },
      event: { $ref: agentEventSchema.$id },
    },
  },
  refs: [agentEventSchema],
  options: { allErrors: true, strict: false },
});

export interface ClusterInboxOptions {
  names: ClusterNames;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Unacked messages of a vanished owner go back to the stream after this long. */
  ackWaitMs: number;
  logger: RootLogger;
  /** A pulled event for an owned partition (`seq`: its stream sequence); resolves once it is in local delivery or given up. */
  onEvent(envelope: InboxEnvelope, partition: number, seq: number): Promise<void>;
  /** A message that is not an envelope (counted, then terminated: it can never succeed). */
  onMalformed(): void;
}

interface InFlight {
  msg: JsMsg;
  partition: number;
  /**
   * The same request published again while this one is in progress (its requester's instance moved
   * to another node and resumed its call): handed on once this one is done, so that it is answered
   * from the turn this one ran — to the node that asks now, not the one that asked first.
   */
  again?: Array<{ msg: JsMsg; envelope: InboxEnvelope }>;
}

export class ClusterInbox {
  private readonly consumers = new Map<number, ConsumerMessages>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly order: InstanceOrder;

  constructor(private readonly options: ClusterInboxOptions) {
    this.order = new InstanceOrder({ olderInStream: (subject, below) => this.olderInStream(subject, below), recheckMs: options.ackWaitMs, logger: options.logger });
  }

  ensureStream(): Promise<void> {
    const { jsm, names } = this.options;
    return ensureStream(jsm, { name: names.inboxStream, subjects: [names.inboxSubjects()], retention: RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: nanos(120_000) });
  }

  /**
   * Accepted once stored. A publish that got no answer (NATS restarting, JetStream still starting
   * behind a server that is back) is sent again until PUBLISH_PATIENCE_MS: the msgID makes JetStream
   * store it once and answer a repeat as a duplicate, which is an acceptance too. A refusal from
   * JetStream itself is final.
   */
  async publish(partition: number, envelope: InboxEnvelope): Promise<void> {
    const h = headers();
    h.set('Gdn-Origin', envelope.origin);
    const subject = this.options.names.inboxSubject(partition, envelope.target);
    const data = JSON.stringify(envelope);
    const msgID = publishId(envelope);
    await retryUntil(() => this.options.js.publish(subject, data, { msgID, headers: h, timeout: PUBLISH_ATTEMPT_MS }), {
      until: Date.now() + PUBLISH_PATIENCE_MS,
      pauseMs: PUBLISH_RETRY_MS,
      final: (error) => error instanceof JetStreamApiError,
    });
  }

  async startPartition(partition: number): Promise<void> {
    if (this.consumers.has(partition)) return;
    const { jsm, js, names } = this.options;
    const durable = names.partitionConsumer(partition);
    await jsm.consumers
      .add(names.inboxStream, {
        durable_name: durable,
        filter_subject: names.partitionFilter(partition),
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(this.options.ackWaitMs),
        max_deliver: -1,
        max_ack_pending: 10_000,
      })
      .catch(() => undefined); // exists already (same config): fine
    const consumer = await js.consumers.get(names.inboxStream, durable);
    const messages = await consumer.consume({ max_messages: 256 });
    this.consumers.set(partition, messages);
    void this.pump(partition, messages);
  }

  /** No more events of `partition` are pulled; those in progress can still be acked. */
  stopPulling(partition: number): void {
    this.stopConsumer(partition);
    this.order.forget(this.options.names.partitionSubjectPrefix(partition));
  }

  /** Drops the partition's messages in progress; `giveBack` naks them so the next owner gets them at once. */
  dropUnfinished(partition: number, giveBack: boolean): number {
    let dropped = 0;
    for (const [eventId, entry] of this.inFlight) {
      if (entry.partition !== partition) continue;
      this.inFlight.delete(eventId);
      for (const msg of messagesOf(entry)) {
        if (giveBack) msg.nak();
        dropped += 1;
      }
    }
    return dropped;
  }

  /**
   * After a reconnect: pull requests made before a NATS restart can be forgotten by the server, so
   * every consumer pulls afresh (messages in progress stay ackable; redeliveries are recognised).
   */
  async resumeAll(): Promise<void> {
    for (const partition of [...this.consumers.keys()]) {
      // Still ours: what its instances wait for (instance-order.ts) stays as it is.
      this.stopConsumer(partition);
      await this.startPartition(partition).catch((error: unknown) => this.options.logger.warn({ partition, err: error }, 'could not resume pulling a partition after a reconnect; retrying on the next one'));
    }
  }

  /**
   * How far owners have taken the instance's inbox: a stream sequence at or below which each of its
   * messages still in the stream (not done: a work queue keeps only those) was delivered to an owner
   * — running there, or queued behind a running turn; undefined when none was. What a deletion gives
   * up (deletion-marks.ts). The partition's consumer delivers in stream order, so every message up to
   * the last one it delivered was delivered.
   */
  async takenThrough(partition: number, id: AgentId): Promise<number | undefined> {
    const { jsm, names } = this.options;
    const last = await jsm.streams.getMessage(names.inboxStream, { last_by_subj: names.inboxSubject(partition, id) });
    if (!last) return undefined;
    const delivered = await jsm.consumers.info(names.inboxStream, names.partitionConsumer(partition)).then(
      (info) => info.delivered.stream_seq,
      // Never pulled: nothing of the partition was delivered.
      (error: unknown) => (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound ? 0 : Promise.reject(error)),
    );
    const through = Math.min(last.seq, delivered);
    return through > 0 ? through : undefined;
  }

  isInFlight(eventId: string): boolean {
    return this.inFlight.has(eventId);
  }

  /** The turn is folded and replicated: the message is done (and the same request sent again since goes on). */
  ack(eventId: string): void {
    const entry = this.inFlight.get(eventId);
    if (!entry) return;
    this.inFlight.delete(eventId);
    entry.msg.ack();
    const [next, ...rest] = entry.again ?? [];
    if (!next) return;
    this.inFlight.set(eventId, { msg: next.msg, partition: entry.partition, ...(rest.length > 0 ? { again: rest } : {}) });
    void this.handOn(next.envelope, entry.partition, next.msg.seq);
  }

  /** Tells JetStream the running turns are still being worked on (each tick). */
  keepAlive(): void {
    for (const entry of this.inFlight.values()) for (const msg of messagesOf(entry)) msg.working();
  }

  close(): void {
    for (const partition of [...this.consumers.keys()]) {
      this.stopPulling(partition);
      this.dropUnfinished(partition, true);
    }
  }

  private stopConsumer(partition: number): void {
    const messages = this.consumers.get(partition);
    this.consumers.delete(partition);
    messages?.stop();
  }

  private async pump(partition: number, messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) {
      const envelope = messageJson(msg);
      if (!isEnvelope(envelope)) {
        this.options.onMalformed();
        this.options.logger.warn({ partition, subject: msg.subject, problems: describeErrors(isEnvelope.errors) }, 'dropped a malformed cluster inbox message');
        msg.term();
        continue;
      }
      const eventId = envelope.event.id;
      const known = this.inFlight.get(eventId);
      if (known) {
        this.alsoInFlight(known, msg, envelope, partition);
        continue;
      }
      this.inFlight.set(eventId, { msg, partition });
      try {
        await this.order.accept({ seq: msg.seq, subject: msg.subject, deliver: () => this.handOn(envelope, partition, msg.seq) });
      } catch (error) {
        // The stream could not be asked for the instance's older events (NATS away): later, again.
        this.options.logger.warn({ partition, eventId, err: error }, 'could not look for an instance’s older events; the event will be redelivered');
        this.inFlight.delete(eventId);
        msg.nak(1_000);
      }
    }
  }

  private async handOn(envelope: InboxEnvelope, partition: number, seq: number): Promise<void> {
    const eventId = envelope.event.id;
    // Held behind older events until the partition left this node: it was given back or dropped.
    if (!this.inFlight.has(eventId)) return;
    try {
      await this.options.onEvent(envelope, partition, seq);
    } catch (error) {
      this.options.logger.error({ partition, eventId, err: error }, 'could not hand a cluster inbox event to its instance; it will be redelivered');
      // The latest delivery: one held long enough may have come again meanwhile.
      const entry = this.inFlight.get(eventId);
      if (entry) for (const msg of messagesOf(entry)) msg.nak(1_000);
      this.inFlight.delete(eventId);
    }
  }

  /**
   * A message for an event already in progress here. The same message again (redelivered): the
   * newer delivery is the one to ack. Another message with the event (a request published again by
   * its requester's new node): it waits for the first one's turn, then goes on (ack()).
   */
  private alsoInFlight(known: InFlight, msg: JsMsg, envelope: InboxEnvelope, partition: number): void {
    if (known.msg.seq === msg.seq) {
      known.msg = msg;
      return;
    }
    const again = known.again?.find((entry) => entry.msg.seq === msg.seq);
    if (again) {
      again.msg = msg;
      return;
    }
    (known.again ??= []).push({ msg, envelope });
    this.options.logger.info(
      { partition, eventId: envelope.event.id, origin: envelope.origin, seq: msg.seq, first: known.msg.seq },
      'a request sent again while its first delivery is in progress waits for that turn; it is then answered from it',
    );
  }

  /**
   * Sequences of the messages on `subject` still in the stream below `below` (a work queue keeps
   * only unacked ones) and not in progress here: those this node has are handed on already.
   */
  private async olderInStream(subject: string, below: number): Promise<number[]> {
    const here = new Set<number>();
    for (const entry of this.inFlight.values()) for (const msg of messagesOf(entry)) if (msg.subject === subject) here.add(msg.seq);
    const older: number[] = [];
    for (let from = 1; from < below; ) {
      // `next_by_subj` is in the server's API (2.9+), not in the client's types.
      const next = await this.options.jsm.streams.getMessage(this.options.names.inboxStream, { next_by_subj: subject, seq: from } as unknown as { seq: number });
      if (!next || next.seq >= below) break;
      if (!here.has(next.seq)) older.push(next.seq);
      from = next.seq + 1;
    }
    return older;
  }
}

function messagesOf(entry: InFlight): JsMsg[] {
  return [entry.msg, ...(entry.again ?? []).map((again) => again.msg)];
}

/**
 * JetStream's de-duplication id. An event from outside keeps its id: a retry under its idempotency
 * key, from any node, is stored once. A request from an agent is published under a fresh id each
 * time the agent sends it: its id stays the same across a resumed call (the callee runs it once,
 * and answers it again from its history), and the re-send after the requester's instance moved to
 * another node must reach the callee. Under the event id alone, JetStream took it for a duplicate
 * of the first (within its 120 s window), acknowledged it and never delivered it: the first reply
 * had gone to the dead node, and the resumed call waited out its timeout. Retries of one publish
 * (no answer from NATS) share the id, so a publish that landed unanswered is still stored once.
 */
function publishId(envelope: InboxEnvelope): string {
  const { event, kind } = envelope;
  return kind === 'request' && event.source.kind === 'agent' ? `${event.id}.${crypto.randomUUID()}` : event.id;
}
