/**
 * Delivers a request's outcome to whoever asked: a waiter inside the daemon, a caller waiting on
 * another cluster node, or the exact process incarnation that asked. The reply to an async
 * request whose asker is gone goes into its instance's durable inbox instead (issue 10): the
 * instance's next process puts it into the conversation. A sync reply is dropped then — the
 * resumed tool call asks again under the same correlationId (and a requester passivated while it
 * waited is woken for that).
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { makeReplyEvent, type ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import { ASYNC_REPLY_FOR_KEY } from '../../shared/ipc/request-metadata.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { Supervisor } from '../process/supervisor.ts';
import type { RequestSpans } from '../telemetry/request-spans.ts';
import { SETTLED_EVENT_KEY } from './foreign-outcomes.ts';
import type { PendingRequest, Requester } from './pending-requests.ts';

export interface RequesterRepliesDeps {
  supervisor: Supervisor;
  logger: RootLogger;
  requestSpans?: RequestSpans;
  isKnownAgent(name: string): boolean;
  /** Cluster mode: the reply goes to the node whose caller waits, which may take it until `until`. */
  sendToNode?(node: string, event: AgentEvent, until: number): void;
  /** Into an instance's inbox, here or on its owner node. */
  keep(target: AgentId, event: AgentEvent, from: string): void;
  /** The request is over (a streamed reply stops following it). */
  onAnswered(correlationId: string): void;
}

export class RequesterReplies {
  constructor(private readonly deps: RequesterRepliesDeps) {}

  answer(request: PendingRequest, outcome: ReplyOutcome, original?: AgentEvent): void {
    const { requester, correlationId } = request;
    this.deps.onAnswered(correlationId);
    this.deps.requestSpans?.end(correlationId, outcome.status === 'ok' ? undefined : `${outcome.error?.code ?? outcome.status}: ${outcome.error?.message ?? ''}`);
    if (requester.kind === 'local') {
      requester.resolve(outcome);
      return;
    }
    const payload = original ?? makeReplyEvent(correlationId, ORCHESTRATOR_SOURCE, outcome);
    if (requester.kind === 'remote') {
      // Named, so that the caller's node records the outcome of the event it accepted (foreign-outcomes.ts).
      const named: AgentEvent = { ...payload, metadata: { ...payload.metadata, [SETTLED_EVENT_KEY]: request.requestEventId } };
      if (named.traceId === undefined && outcome.traceId !== undefined) named.traceId = outcome.traceId;
      this.deps.sendToNode?.(requester.node, named, request.deadline);
      return;
    }
    const from = original?.source.name ?? ORCHESTRATOR;
    const proc = this.deps.supervisor.byKey(requester.key);
    if (proc && proc.incarnation === requester.incarnation && proc.alive) {
      proc.send({ type: 'event', from, to: proc.name, payload });
      return;
    }
    if (requester.async && this.deps.isKnownAgent(requester.agent)) {
      this.deps.logger.info({ correlationId, requester: requester.key, traceId: outcome.traceId }, 'requester is gone; async reply kept in its inbox');
      const kept: AgentEvent = { ...payload, metadata: { ...payload.metadata, [ASYNC_REPLY_FOR_KEY]: request.requestEventId } };
      this.deps.keep({ agent: requester.agent, instanceKey: requester.instanceKey }, kept, from);
      return;
    }
    this.deps.logger.info({ correlationId, requester: requester.key, traceId: outcome.traceId }, 'requester is gone; reply dropped');
    // Passivated while it waited for this: its resumed call asks again and the callee answers from its history.
    this.deps.supervisor.wake(requester.agent, requester.instanceKey);
  }
}

/** How the exchange printer names who asked. */
export function requesterName(requester: Requester): string {
  if (requester.kind === 'local') return 'you';
  return requester.kind === 'remote' ? `node ${requester.node}` : requester.agent;
}
