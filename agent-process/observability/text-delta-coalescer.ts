/**
 * Streamed model text is forwarded in pieces no more often than once per window: chunks that
 * arrive together (a burst from the provider, the mock without delays) leave as one `step.delta`,
 * so token streaming does not flood IPC; the first piece after a quiet window leaves at once.
 */
export const STEP_DELTA_WINDOW_MS = 25;

export class TextDeltaCoalescer {
  private buffer = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly send: (text: string) => void,
    private readonly windowMs = STEP_DELTA_WINDOW_MS,
  ) {}

  push(text: string): void {
    this.buffer += text;
    if (this.timer !== undefined) return;
    // Even "at once" waits for the current burst: deltas that arrive in the same tick travel together.
    const wait = Math.max(0, this.lastFlushAt + this.windowMs - performance.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends what is buffered now (the step ended, or the window passed). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    this.lastFlushAt = performance.now();
    this.send(text);
  }
}
