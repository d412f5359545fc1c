/**
 * The cluster's patience with NATS: an attempt made again, `pauseMs` apart, until it succeeds, an
 * error is final, or the next attempt would start after `until` (ms since the epoch). The last
 * error is thrown. Used where a NATS restart of a few seconds must cost a delay, not a failure:
 * a state sync before a tool acts, an event's publish, a reply to another node.
 */
export interface RetryUntil {
  until: number;
  pauseMs: number;
  /** An error that no later attempt can change (another node's write, a refusal from JetStream). */
  final?(error: unknown): boolean;
  /** Each failure, before it is retried or thrown. */
  failed?(error: unknown): void;
}

export async function retryUntil<T>(attempt: () => Promise<T>, options: RetryUntil): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      options.failed?.(error);
      if (options.final?.(error) || Date.now() + options.pauseMs > options.until) throw error;
      await Bun.sleep(options.pauseMs);
    }
  }
}
