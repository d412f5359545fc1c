/**
 * One request/response exchange with the orchestrator over IPC: a `runtime.*` control event with
 * `replyTo`, answered by `runtime.response` (`metadata.inReplyTo`). Used for spawn/list/catalog and
 * for tool approvals.
 */
import { ORCHESTRATOR, makeEvent } from '../../shared/ipc/control-events.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { Transport } from '../../shared/ipc/transport.ts';
import { newId } from '../../shared/ids.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { PendingReplies } from './pending-replies.ts';

export interface ControlChannel {
  transport: Transport;
  replies: PendingReplies;
  agentName: string;
  instanceKey: string;
}

export function requestControl(channel: ControlChannel, type: string, metadata: JsonObject, timeoutMs: number): Promise<ReplyOutcome> {
  const correlationId = newId('corr');
  const event = makeEvent(type, { kind: 'agent', name: channel.agentName, instanceKey: channel.instanceKey }, { metadata });
  event.replyTo = { target: channel.agentName, correlationId };
  const reply = new Promise<ReplyOutcome>((resolve) => channel.replies.wait(correlationId, timeoutMs, resolve));
  channel.transport.send({ type: 'event', from: channel.agentName, to: ORCHESTRATOR, payload: event });
  return reply;
}
