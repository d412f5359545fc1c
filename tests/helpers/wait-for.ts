/**
 * Waiting for a condition in tests, instead of sleeping and hoping (issue 16): poll, return as soon
 * as it holds, and on timeout say what was awaited and what was last seen.
 */

/**
 * Deadline for a condition: generous, because a shared 2-core machine was seen running the suite
 * 8-20× slower than idle (load average near 30); still well under npm test's 120 s per-test limit,
 * so a timeout fails with this message rather than a bare test timeout.
 */
export const WAIT_MS = 60_000;

/**
 * Polls `read` until `accept` takes its value, and returns that value. On timeout the error names
 * what was awaited and shows the last value read (or the error reading it threw).
 */
export async function waitFor<T>(what: string, read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let seen = 'nothing yet';
  // Quick at first (most conditions hold within milliseconds), then gentle on a busy machine.
  let pause = 10;
  for (;;) {
    try {
      const value = await read();
      if (accept(value)) return value;
      seen = preview(value);
    } catch (error) {
      seen = `an error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${seen}`);
    await Bun.sleep(pause);
    pause = Math.min(pause * 2, 100);
  }
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 2000 ? `…${text.slice(-2000)}` : text;
}

/** Waits until a boolean condition holds; prefer `waitFor` when there is a value worth showing. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = WAIT_MS): Promise<void> {
  await waitFor(what, condition, (ok) => ok, timeoutMs);
}


/** `promise`, or a failure naming `what` if it has not settled within `timeoutMs`. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
