/**
 * How a CLI request notices a hung daemon (one stopped with SIGSTOP, or wedged): the daemon's
 * answer must begin within GOONDAN_CLI_ANSWER_TIMEOUT_MS — or, for a request it answers only once
 * work is done (a waited reply, a restart that drains turns, a deletion), its `GET /healthz` must
 * keep answering within that time while the request waits. Either way the watch ends with the
 * answer's headers: a streamed body is not bounded here.
 */

/** How long a CLI command waits for the daemon to begin answering (GOONDAN_CLI_ANSWER_TIMEOUT_MS, default 30 s). */
export function quickAnswerMs(env: Record<string, string | undefined> = process.env): number {
  const set = Number(env.GOONDAN_CLI_ANSWER_TIMEOUT_MS);
  return Number.isInteger(set) && set > 0 ? set : 30_000;
}

/** `at-once`: the answer itself must begin in time; `after-work`: the daemon must stay alive (healthz) until it answers. */
export type AnswerKind = 'at-once' | 'after-work';

/** Longest pause between two liveness probes while a request waits for work to finish. */
const PROBE_INTERVAL_MS = 2_000;

/**
 * Calls `onHung` (once) when the daemon at `base` does not answer in time; the returned function
 * ends the watch (call it once the answer's headers arrived, or the request failed).
 */
export function watchAnswer(base: string, kind: AnswerKind, withinMs: number, onHung: () => void): () => void {
  if (kind === 'at-once') {
    const timer = setTimeout(onHung, withinMs);
    return () => clearTimeout(timer);
  }
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const probe = async (): Promise<void> => {
    const alive = await answersHealthz(base, withinMs);
    if (stopped) return;
    if (!alive) {
      onHung();
      return;
    }
    timer = setTimeout(() => void probe(), Math.min(PROBE_INTERVAL_MS, withinMs));
  };
  void probe();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * False only when the daemon took the connection and did not answer in time: any answer (also an
 * error status) is a live daemon, and a refused connection is left to the request itself to report.
 */
async function answersHealthz(base: string, withinMs: number): Promise<boolean> {
  try {
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(withinMs) });
    await response.body?.cancel();
    return true;
  } catch (error) {
    return !(error instanceof Error && error.name === 'TimeoutError');
  }
}
