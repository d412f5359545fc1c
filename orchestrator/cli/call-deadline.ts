/**
 * `goondan send --timeout MS` bounds the whole call — connecting, the answer and a streamed reply —
 * not only the daemon's wait for the turn. The daemon answers AGENT_REQUEST_TIMEOUT itself at MS
 * (it knows the event id); the CLI gives up a little later, so that only a daemon that cannot answer
 * (hung, stopped) is given up on.
 */

export interface CallDeadline {
  /** Aborted when the time is up. */
  signal: AbortSignal;
  /** MS: what --timeout asked for. */
  timeoutMs: number;
  /** How long the call is given in all: MS and the time for the daemon's own timeout answer to arrive. */
  totalMs: number;
  expired(): boolean;
  stop(): void;
}

/** Time after MS for the daemon's AGENT_REQUEST_TIMEOUT answer to arrive: 1 s and a tenth of MS, at most 5 s. */
export function answerGraceMs(timeoutMs: number): number {
  return Math.min(5_000, 1_000 + Math.round(timeoutMs / 10));
}

export function callDeadline(timeoutMs: number): CallDeadline {
  const totalMs = timeoutMs + answerGraceMs(timeoutMs);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), totalMs);
  return {
    signal: controller.signal,
    timeoutMs,
    totalMs,
    expired: () => controller.signal.aborted,
    stop: () => clearTimeout(timer),
  };
}
