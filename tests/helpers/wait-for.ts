/**
 * Waiting for a condition in tests, instead of sleeping and hoping (issue 16): poll, return as soon
 * as it holds, and on timeout say what was awaited and what was last seen.
 */

/**
 * Deadline for a condition: generous, because the shared 2-core machine was seen running tests
 * up to 60× slower than idle (load average near 70); still well under npm test's 300 s per-test
 * limit, so a timeout fails with this message rather than a bare test timeout. A green run never
 * waits for it.
 */
export const WAIT_MS = 120_000;

/**
 * Polls `read` until `accept` takes its value, and returns that value. On timeout the error names
 * what was awaited and shows the last value read (or the error reading it threw).
 */
export function waitFor<T>(what: string, read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = WAIT_MS): Promise<T> {
  return poll(what, read, accept, timeoutMs, false);
}

/**
 * Like `waitFor`, for a condition reached in many steps (nine crashes, …): the deadline is per
 * step — it fails only when the value read has not changed for `stallMs`.
 */
export function waitForProgress<T>(what: string, read: () => T | Promise<T>, accept: (value: T) => boolean, stallMs = WAIT_MS): Promise<T> {
  return poll(what, read, accept, stallMs, true);
}

async function poll<T>(what: string, read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs: number, extendOnChange: boolean): Promise<T> {
  let deadline = Date.now() + timeoutMs;
  let seen = 'nothing yet';
  // Quick at first (most conditions hold within milliseconds), then gentle on a busy machine.
  let pause = 10;
  for (;;) {
    try {
      const value = await read();
      if (accept(value)) return value;
      const now = preview(value);
      if (extendOnChange && now !== seen) deadline = Date.now() + timeoutMs;
      seen = now;
    } catch (error) {
      seen = `an error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) {
      const limit = extendOnChange ? `no change for ${timeoutMs / 1000} s` : `timed out after ${timeoutMs / 1000} s`;
      throw new Error(`${limit} waiting for ${what}; last seen: ${seen}`);
    }
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
