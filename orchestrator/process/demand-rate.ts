/** How often something happened recently: events per second over a sliding window. */
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
    return this.times.length / (this.windowMs / 1000);
  }

  private prune(): void {
    const oldest = this.now() - this.windowMs;
    let drop = 0;
    while (drop < this.times.length && (this.times[drop] ?? 0) < oldest) drop += 1;
    if (drop > 0) this.times.splice(0, drop);
  }
}
