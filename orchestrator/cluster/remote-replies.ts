/**
 * Replies for callers waiting on another node, delivered at least once. A reply is a NATS request
 * to the caller's node, which answers once it has handed the reply on; while that answer does not
 * come (NATS restarting, the caller's node reconnecting, no responders) the reply is sent again
 * every RETRY_MS until the caller's own deadline. Published once, as before, a reply sent while
 * NATS was away was lost, and an HTTP caller waited out its timeout (504) for a turn that had
 * answered. The caller's node drops a reply it already has: the waiter is taken by correlation id.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { validateAgentEvent } from '../../shared/ipc/ipc-schemas.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { retryUntil } from './retry-until.ts';

/** How long one attempt waits for the caller's node to say it has the reply. */
const RECEIPT_TIMEOUT_MS = 1_000;
/** Between attempts. */
const RETRY_MS = 500;

export class RemoteReplies {
  constructor(
    private readonly nc: NatsConnection,
    private readonly subjectOf: (node: string) => string,
    private readonly logger: RootLogger,
  ) {}

  /**
   * Sends until the caller's node has it or `until` (ms since the epoch, the caller's deadline)
   * passes; true once it has it. `missed` hears of the first attempt that did not get through.
   */
  async send(node: string, event: AgentEvent, until: number, missed?: () => void): Promise<boolean> {
    const data = JSON.stringify(event);
    let attempts = 0;
    try {
      await retryUntil(
        () => {
          attempts += 1;
          return this.nc.request(this.subjectOf(node), data, { timeout: RECEIPT_TIMEOUT_MS });
        },
        // Closed: this node is stopping; its callers' nodes learn of it by their own deadlines.
        {
          until,
          pauseMs: RETRY_MS,
          final: () => this.nc.isClosed(),
          failed: () => {
            if (attempts === 1) missed?.();
          },
        },
      );
      if (attempts > 1) this.logger.info({ node, traceId: event.traceId, attempts }, 'a reply reached the node whose caller waits after a retry');
      return true;
    } catch (error) {
      if (!this.nc.isClosed()) this.logger.warn({ node, traceId: event.traceId, attempts, err: error }, 'could not deliver a reply to the node whose caller waits before its deadline');
      return false;
    }
  }
}

/** A reply's bytes as another node sent them: undefined (after `malformed` heard why) when they are not an event. */
export function parseRemoteReply(data: Uint8Array, malformed: (problems: unknown) => void): AgentEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(data));
  } catch {
    value = undefined;
  }
  const checked = validateAgentEvent(value);
  if (checked.ok) return checked.value;
  malformed(checked.problems);
  return undefined;
}
