/**
 * A wait with a bound: `promise`'s outcome, or `late()`'s value once `timeoutMs` passed first. The
 * timer is cleared either way, so a bounded wait never keeps the process alive after it settled.
 */
export function within<T, L>(promise: Promise<T>, timeoutMs: number, late: () => L): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late()), timeoutMs);
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}
