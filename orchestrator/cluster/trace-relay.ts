/**
 * Cluster mode: the runtime events of a streamed request's trace reach the node its caller waits
 * on. `stream: true` (and the OpenAI front door's streaming, a connector's streamed reply) follows
 * the caller's node's runtime events; when the instance ran on another node they were all there,
 * and the caller got the reply alone, at the end. Now the caller's node follows the trace and marks
 * the events it sends into the cluster (STREAM_TO_KEY: itself); a node that runs an event so marked
 * follows the trace too, marks the requests its agents send on within it, and sends the trace's
 * runtime events to the caller's node over core NATS (best effort, as a live stream is), which
 * publishes them on its own bus. A node stops following a trace once its events there have left
 * their inboxes (and the caller's node once the reply came).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { validateRuntimeEvent } from '../../shared/ipc/ipc-schemas.ts';
import { STREAM_REPLY_KEY } from '../../shared/ipc/request-metadata.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { RUNTIME_EVENT_TYPES } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import { messageJson } from './kv-json.ts';

/** On an event sent into the cluster: the node to send its trace's runtime events to. */
export const STREAM_TO_KEY = '__streamTo';
/** After the reply went: runtime events the agent sends with its turn's end still go. */
const LINGER_MS = 2_000;
/** A trace followed longer than this is dropped (its end never came through this node). */
const MAX_FOLLOW_MS = 30 * 60_000;
const RELAYED_TYPES = new Set<string>(RUNTIME_EVENT_TYPES);

interface Followed {
  /** Where its caller waits (this node for a caller of its own). */
  node: string;
  /** The events of the trace here whose reply has not gone yet. */
  events: Set<string>;
  since: number;
}

export class TraceRelay {
  private readonly traces = new Map<string, Followed>();
  /** Event (or caller) key → its trace. */
  private readonly traceOf = new Map<string, string>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subjectOf: (node: string) => string,
    private readonly nodeId: string,
    private readonly logger: RootLogger,
  ) {}

  /** A caller here streams this trace (until its reply: end(callerKey)). */
  streamedHere(traceId: string, eventKey: string): void {
    this.follow(traceId, this.nodeId, eventKey);
  }

  /** An event pulled here to run: a marked one has its trace followed for its caller's node. */
  delivered(event: AgentEvent): void {
    const node = event.metadata?.[STREAM_TO_KEY];
    if (typeof node === 'string' && node !== this.nodeId && event.traceId !== undefined) this.follow(event.traceId, node, event.id);
  }

  /**
   * An event this node sends into the cluster, marked for the node that streams its trace (or this
   * node, for a connector's streamed reply); any other mark is dropped (agents and callers cannot
   * aim another node's runtime events anywhere).
   */
  outgoing(event: AgentEvent): AgentEvent {
    const { [STREAM_TO_KEY]: given, ...metadata } = event.metadata ?? {};
    const followed = event.traceId === undefined ? undefined : this.traces.get(event.traceId);
    const node = followed?.node ?? (event.source.kind === 'connector' && metadata[STREAM_REPLY_KEY] === true ? this.nodeId : undefined);
    if (node === undefined && given === undefined) return event;
    return { ...event, metadata: node === undefined ? metadata : { ...metadata, [STREAM_TO_KEY]: node } };
  }

  /** `eventKey` (an event that left its inbox here, or a caller answered here) is done: once its trace has none left, it is followed a little longer, then no more. */
  end(eventKey: string): void {
    const traceId = this.traceOf.get(eventKey);
    if (traceId === undefined) return;
    this.traceOf.delete(eventKey);
    const followed = this.traces.get(traceId);
    if (!followed || !followed.events.delete(eventKey) || followed.events.size > 0) return;
    setTimeout(() => {
      if (this.traces.get(traceId)?.events.size === 0) this.traces.delete(traceId);
    }, LINGER_MS).unref?.();
  }

  /** Sends this node's runtime events of traces followed for other nodes on, and publishes those sent here. */
  start(bus: RuntimeEventBus): Subscription {
    this.unsubscribe = bus.subscribe((event) => {
      const followed = this.traces.get(event.traceId);
      if (followed && followed.node !== this.nodeId && RELAYED_TYPES.has(event.type)) this.nc.publish(this.subjectOf(followed.node), JSON.stringify(event));
    });
    return this.nc.subscribe(this.subjectOf(this.nodeId), {
      callback: (error, msg) => {
        if (error) return;
        const checked = validateRuntimeEvent(messageJson(msg));
        if (checked.ok) bus.publish(checked.value);
        else this.logger.warn({ problems: checked.problems }, 'dropped a malformed runtime event relayed from another node');
      },
    });
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private follow(traceId: string, node: string, eventKey: string): void {
    const now = Date.now();
    for (const [id, followed] of this.traces) {
      if (now - followed.since <= MAX_FOLLOW_MS) continue;
      this.traces.delete(id);
      for (const key of followed.events) this.traceOf.delete(key);
    }
    const followed = this.traces.get(traceId) ?? { node, events: new Set<string>(), since: now };
    followed.events.add(eventKey);
    this.traces.set(traceId, followed);
    this.traceOf.set(eventKey, traceId);
  }
}
