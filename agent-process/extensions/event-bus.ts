/**
 * The in-process event bus behind `api.events` (SPEC.md §4.3). Runtime events are published on it
 * under their own names, so `on('turn.completed')` sees the same events as runtime-events.jsonl
 * (the reference kept two buses, SPEC.md §9.13). A throwing handler is logged, never propagated.
 */
import type { JsonValue } from '../../shared/types/json.ts';
import type { Logger } from '../../shared/types/tools.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';

export type BusHandler = (payload: RuntimeEvent | JsonValue) => void;

export class EventBus {
  private readonly handlers = new Map<string, Set<BusHandler>>();

  constructor(private readonly logger: Logger) {}

  on(name: string, handler: BusHandler): () => void {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  emit(name: string, payload: RuntimeEvent | JsonValue): void {
    const set = this.handlers.get(name);
    if (!set || set.size === 0) return;
    for (const handler of [...set]) {
      try {
        handler(payload);
      } catch (error) {
        this.logger.warn({ code: 'E_EXT_EVENT_HANDLER', event: name, err: error }, `an event handler for '${name}' threw`);
      }
    }
  }
}
