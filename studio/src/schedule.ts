/** Timers the views share: refresh while visible, and collapse bursts of live events into one refresh. */

/** Runs `work` now and every `intervalMs` between start() and stop(); never two at once. */
export function poller(work: () => Promise<void>, intervalMs: number): { start(): void; stop(): void; now(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let active = false;
  const tick = async () => {
    timer = undefined;
    if (running) return;
    running = true;
    try {
      await work();
    } catch {
      // The view shows its own error; the next tick tries again.
    } finally {
      running = false;
      if (active && timer === undefined) timer = setTimeout(tick, intervalMs);
    }
  };
  return {
    start() {
      if (active) return;
      active = true;
      void tick();
    },
    stop() {
      active = false;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    now() {
      if (timer !== undefined) clearTimeout(timer);
      void tick();
    },
  };
}

/** Calls `fn` once, `delayMs` after the last of a burst of calls. */
export function debounce(fn: () => void, delayMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, delayMs);
  };
}
