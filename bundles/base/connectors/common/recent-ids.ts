/**
 * A bounded memory of ids already handled (Telegram update_id, Slack event_id, GitHub delivery
 * id): providers redeliver when an answer was slow or lost, and the same event must not become a
 * second turn. The oldest ids are forgotten first.
 */
export class RecentIds {
  private readonly seen = new Set<string>();

  constructor(private readonly capacity = 2000) {}

  /** True the first time an id is offered, false for a repeat. */
  firstTime(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > this.capacity) {
      const oldest = this.seen.values().next();
      if (!oldest.done) this.seen.delete(oldest.value);
    }
    return true;
  }
}
