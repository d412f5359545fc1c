/**
 * One request/response exchange with the orchestrator over IPC: a control event with `replyTo`,
 * answered by `runtime.response` (`metadata.inReplyTo`) whose result is checked against the
 * request type's schema (shared/ipc/control-results.ts).
 */
import { ORCHESTRATOR } from '../ipc/control-events.ts';
import { type ControlPayloads, controlEvent } from '../ipc/control-protocol.ts';
import { type ControlRequestType, type ControlResults, parseControlResult } from '../ipc/control-results.ts';
import type { ReplyOutcome } from '../ipc/reply-events.ts';
import type { ShellChannel } from './child-shell.ts';
import { runtimeError, type ErrorShape } from '../errors/index.ts';
import { newId } from '../ids.ts';
import type { EventSource } from '../types/events.ts';

export interface ControlChannel {
  channel: ShellChannel;
  self: EventSource;
}

export type ControlAnswer<K extends ControlRequestType> = { ok: true; value: ControlResults[K] } | { ok: false; error: ErrorShape };

export async function requestControl<K extends ControlRequestType>(
  { channel, self }: ControlChannel,
  type: K,
  payload: ControlPayloads[K],
  timeoutMs: number,
): Promise<ControlAnswer<K>> {
  const correlationId = newId('corr');
  const event = controlEvent(type, self, payload, { replyTo: { target: self.name, correlationId } });
  const reply = new Promise<ReplyOutcome>((resolve) => channel.replies.wait(correlationId, timeoutMs, resolve));
  channel.post(ORCHESTRATOR, event);
  const outcome = await reply;
  if (outcome.status !== 'ok') return { ok: false, error: outcome.error ?? runtimeError('AGENT_TURN_FAILED', `${type} failed`) };
  const result = parseControlResult(type, outcome.result);
  if (!result.ok) return { ok: false, error: runtimeError('IPC_DELIVERY_FAILED', result.problem) };
  return { ok: true, value: result.value };
}
