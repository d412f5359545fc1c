/**
 * Waiting for a condition in the core tests: polls until `probe` returns a value, or fails after a
 * generous deadline with what was waited for and what was seen (never a bare sleep).
 */

/** The core answers within milliseconds; this is far beyond any normal wait, and below the 5 s test timeout. */
export const WAIT_DEADLINE_MS = 3_000;
const POLL_MS = 2;

export async function eventually<T>(probe: () => T | undefined | false, what: string, seen: () => string, deadlineMs = WAIT_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}; saw: ${seen()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Resolves with the promise's value, or fails naming what was awaited. */
export async function settled<T>(promise: Promise<T>, what: string, deadlineMs = WAIT_DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${deadlineMs} ms waiting for ${what}`)), deadlineMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
