/**
 * Token streaming to connectors (issue 13): while a connector's request that asked for it
 * (`__streamReply`) waits for its reply, the `step.delta` text of the agent instance the request
 * went to, in the request's trace, is relayed to the connector process as `runtime.reply.delta`.
 * Agents that instance calls share the trace but are not the reply: their text is not relayed.
 * Deltas and the reply travel on the same channel, so every chunk reaches the connector before
 * the reply it belongs to.
 */
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { controlEvent } from '../../shared/ipc/control-protocol.ts';
import type { StreamedEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { ManagedProcess } from '../process/managed-process.ts';

/** The connector process that asked, as it was when it asked (a respawned one did not ask). */
export type RelayTarget = Pick<ManagedProcess, 'name' | 'incarnation' | 'alive' | 'send'>;

interface Followed {
  traceId: string;
  replierKey: string;
  to: RelayTarget;
  incarnation: number;
}

export class ReplyDeltaRelay {
  /** By correlationId of the waiting request. */
  private readonly followed = new Map<string, Followed>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly runtimeEvents: RuntimeEventBus) {}

  /** Relays `replier`'s text in `traceId` to `to` until `end(correlationId)`. */
  follow(correlationId: string, traceId: string, replier: AgentId, to: RelayTarget): void {
    this.followed.set(correlationId, { traceId, replierKey: agentKey(replier), to, incarnation: to.incarnation });
    // Subscribed only while someone waits: the bus stays as it was for swarms without streaming connectors.
    this.unsubscribe ??= this.runtimeEvents.subscribe((event) => this.relay(event));
  }

  /** The request was answered (or given up): nothing more is relayed for it. */
  end(correlationId: string): void {
    if (!this.followed.delete(correlationId) || this.followed.size > 0) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  get size(): number {
    return this.followed.size;
  }

  private relay(event: StreamedEvent): void {
    if (event.type !== 'step.delta') return;
    const from = agentKey({ agent: event.agentName, instanceKey: event.instanceKey });
    for (const [correlationId, followed] of this.followed) {
      if (followed.traceId !== event.traceId || followed.replierKey !== from) continue;
      const { to } = followed;
      if (!to.alive || to.incarnation !== followed.incarnation) continue;
      const payload = controlEvent('runtime.reply.delta', ORCHESTRATOR_SOURCE, { correlationId, stepId: event.stepId, text: event.text });
      to.send({ type: 'event', from: ORCHESTRATOR, to: to.name, payload });
    }
  }
}
