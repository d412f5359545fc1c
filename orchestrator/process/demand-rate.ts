/**
 * How often something happened recently: events per second over a sliding window. A burst is
 * seen before it has filled the window: the intervals are divided by the time since the window's
 * first event (at least MIN_SPAN_MS, so two events close together are not read as a flood), not by
 * the whole window — 10 new instances per second read as ~10/s after half a second, not after two.
 */
export const MIN_SPAN_MS = 500;

export class DemandRate {
  private readonly times: number[] = [];

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  record(): void {
    this.times.push(this.now());
    this.prune();
  }

  perSecond(): number {
    this.prune();
    const first = this.times[0];
    if (first === undefined) return 0;
    const spanMs = Math.min(this.windowMs, Math.max(MIN_SPAN_MS, this.now() - first));
    // n events span n - 1 intervals.
    return (this.times.length - 1) / (spanMs / 1000);
  }

  private prune(): void {
    const oldest = this.now() - this.windowMs;
    let drop = 0;
    while (drop < this.times.length && (this.times[drop] ?? 0) < oldest) drop += 1;
    if (drop > 0) this.times.splice(0, drop);
  }
}
