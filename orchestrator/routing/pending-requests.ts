/**
 * The pending table of ARCHITECTURE §2: `correlationId → requester, deadline`. A response is
 * delivered to the exact requester (process incarnation, or an in-daemon waiter such as an HTTP
 * call); a missed deadline resolves as AGENT_REQUEST_TIMEOUT.
 */
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';

export type Requester =
  /** `async`: an agents__request with async: true — its reply outlives the requester's process (issue 10). */
  | { kind: 'process'; key: string; agent: string; instanceKey: string; incarnation: number; async: boolean }
  | { kind: 'local'; resolve: (outcome: ReplyOutcome) => void }
  /** Cluster mode: the caller waits on another node; the reply goes there over NATS (issue 15). */
  | { kind: 'remote'; node: string };

export interface PendingRequest {
  correlationId: string;
  requester: Requester;
  targetAgent: string;
  targetKey: string;
  requestEventId: string;
  traceId?: string;
  /** When it was sent (ms since the epoch): how long a requester has waited. */
  sentAt: number;
  deadline: number;
}

export class PendingRequests {
  private readonly entries = new Map<string, { request: PendingRequest; timer: ReturnType<typeof setTimeout> }>();

  add(request: PendingRequest, onTimeout: (request: PendingRequest) => void): void {
    // A request repeated under its correlationId (a resumed agents__request) replaces the old entry.
    const previous = this.entries.get(request.correlationId);
    if (previous) clearTimeout(previous.timer);
    const delay = Math.max(0, request.deadline - Date.now());
    const timer = setTimeout(() => {
      if (this.entries.get(request.correlationId)?.request !== request) return;
      this.entries.delete(request.correlationId);
      onTimeout(request);
    }, delay);
    this.entries.set(request.correlationId, { request, timer });
  }

  has(correlationId: string): boolean {
    return this.entries.has(correlationId);
  }

  /** Removes and returns the entry; undefined for unknown or already answered correlationIds. */
  take(correlationId: string): PendingRequest | undefined {
    const entry = this.entries.get(correlationId);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.entries.delete(correlationId);
    return entry.request;
  }

  /** Entries whose target is this process (used when it stops for good). */
  forTarget(targetKey: string): PendingRequest[] {
    return [...this.entries.values()].map((e) => e.request).filter((r) => r.targetKey === targetKey);
  }

  /** Entries waiting on a request event (used when that event is dead-lettered). */
  forRequestEvent(eventId: string): PendingRequest[] {
    return [...this.entries.values()].map((e) => e.request).filter((r) => r.requestEventId === eventId);
  }

  /** Since when the process has waited for a sync reply (its oldest open request); undefined when it waits for none. */
  syncWaitSince(processKey: string): number | undefined {
    let since: number | undefined;
    for (const { request } of this.entries.values()) {
      const { requester } = request;
      if (requester.kind === 'process' && requester.key === processKey && !requester.async && (since === undefined || request.sentAt < since)) since = request.sentAt;
    }
    return since;
  }

  all(): PendingRequest[] {
    return [...this.entries.values()].map((e) => e.request);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries.clear();
  }
}
