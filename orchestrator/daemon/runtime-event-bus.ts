/**
 * Fan-out of runtime events (turn.*, step.*, tool.*) forwarded by agent processes: the SSE stream,
 * metrics and the human-readable exchange printer subscribe here.
 */
import type { RuntimeEvent } from '../../shared/types/turns.ts';

export type RuntimeEventListener = (event: RuntimeEvent) => void;

export class RuntimeEventBus {
  private readonly listeners = new Set<RuntimeEventListener>();

  subscribe(listener: RuntimeEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: RuntimeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber (a closed SSE stream) must not affect the others.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
