/**
 * A bounded memory of ids already handled (Telegram update_id, Slack event_id, GitHub delivery
 * id): providers redeliver when an answer was slow or lost, and the same event must not become a
 * second turn. The oldest ids are forgotten first.
 */
import { RecentSet } from '../../../../shared/recent-set.ts';

export class RecentIds {
  private readonly seen: RecentSet<string>;

  constructor(capacity = 2000) {
    this.seen = new RecentSet(capacity);
  }

  /** True the first time an id is offered, false for a repeat. */
  firstTime(id: string): boolean {
    return this.seen.add(id);
  }
}
