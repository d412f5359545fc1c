/**
 * Fan-out of runtime events (turn.*, step.*, tool.*) forwarded by agent processes: the SSE stream,
 * metrics and the human-readable exchange printer subscribe here. With a journal, every event gets
 * its id there first (monotonic per state root) and can be replayed to a reconnecting stream.
 */
import type { StreamedEvent } from '../../shared/types/turns.ts';
import type { LoggedEvent, RuntimeEventJournal } from './runtime-event-journal.ts';

export type RuntimeEventListener = (event: StreamedEvent, id: number) => void;

export class RuntimeEventBus {
  private readonly listeners = new Set<RuntimeEventListener>();
  private counter = 0;

  constructor(private readonly journal?: RuntimeEventJournal) {}

  subscribe(listener: RuntimeEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: StreamedEvent): void {
    const id = this.journal ? this.journal.append(event) : ++this.counter;
    for (const listener of this.listeners) {
      try {
        listener(event, id);
      } catch {
        // A failing subscriber (a closed SSE stream) must not affect the others.
      }
    }
  }

  /** Listeners now (SSE clients among them). */
  get subscribers(): number {
    return this.listeners.size;
  }

  /** The id the latest event got (0 before the first). */
  get latestId(): number {
    return this.journal ? this.journal.latestId : this.counter;
  }

  /** Events published after `id` that the journal still holds (Last-Event-ID replay). */
  since(id: number): LoggedEvent[] {
    return this.journal?.since(id) ?? [];
  }

  close(): void {
    this.journal?.close();
  }

  get size(): number {
    return this.listeners.size;
  }
}
