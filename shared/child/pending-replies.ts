/**
 * Replies a child process waits for, by correlationId: inter-agent responses, control answers
 * (spawn, list, catalog), approval decisions and a connector's requests all arrive as events with
 * `metadata.inReplyTo`.
 */
import { errorOutcome, type ReplyOutcome, replyOutcomeOf } from '../ipc/reply-events.ts';
import { inReplyToOf } from '../ipc/control-events.ts';
import type { AgentEvent } from '../types/events.ts';

/** The orchestrator owns deadlines; this margin only guards against a lost channel. */
const LOCAL_TIMEOUT_MARGIN_MS = 5_000;

export class PendingReplies {
  private readonly waiters = new Map<string, { resolve(outcome: ReplyOutcome): void; timer: ReturnType<typeof setTimeout> }>();

  /** Resolves with the reply, or a local timeout outcome shortly after `timeoutMs`. */
  wait(correlationId: string, timeoutMs: number, resolve: (outcome: ReplyOutcome) => void): void {
    const timer = setTimeout(() => {
      this.waiters.delete(correlationId);
      resolve(errorOutcome('AGENT_REQUEST_TIMEOUT', `no reply within ${timeoutMs} ms`));
    }, timeoutMs + LOCAL_TIMEOUT_MARGIN_MS);
    this.waiters.set(correlationId, { resolve, timer });
  }

  /** Delivers a response event; false when nobody waits for it (late or unknown). */
  handleResponse(event: AgentEvent): boolean {
    const correlationId = inReplyToOf(event);
    const waiter = correlationId ? this.waiters.get(correlationId) : undefined;
    if (!correlationId || !waiter) return false;
    this.waiters.delete(correlationId);
    clearTimeout(waiter.timer);
    waiter.resolve(replyOutcomeOf(event));
    return true;
  }

  /** Fails every outstanding wait (the channel closed). */
  failAll(message: string): void {
    for (const [correlationId, waiter] of this.waiters) {
      clearTimeout(waiter.timer);
      this.waiters.delete(correlationId);
      waiter.resolve(errorOutcome('IPC_DELIVERY_FAILED', message));
    }
  }
}
