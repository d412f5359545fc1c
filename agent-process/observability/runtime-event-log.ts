/**
 * Where runtime events go (SPEC.md §3.2): appended to `messages/runtime-events.jsonl` (never used
 * to rebuild state), handed to the engine's `onRuntimeEvent` (IPC, SSE, metrics) and published on
 * the extension event bus. Streamed text (`step.delta`) skips the file: the step's message holds
 * the text. A failing observer never breaks a turn. The file is written once per loop turn and
 * bounded by the swarm's retention: it rotates to `runtime-events.1.jsonl` (rotating-log.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { warnTornTail } from '../../shared/durability/line-boundary.ts';
import { type RetentionLimits, RotatingLog } from '../../shared/durability/rotating-log.ts';
import type { Logger } from '../../shared/types/tools.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import type { EventBus } from '../extensions/event-bus.ts';

export class RuntimeEventLog {
  private readonly log: RotatingLog;

  constructor(
    private readonly path: string,
    limits: RetentionLimits,
    private readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly observer?: (event: RuntimeEvent) => void,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.log = new RotatingLog(path, limits, Date.now, warnTornTail(logger));
  }

  emit(event: RuntimeEvent): void {
    this.log.appendSoon(`${JSON.stringify(event)}\n`, this.writeFailed);
    this.publish(event);
  }

  /** A live-only event (`step.delta`): observers and the bus see it, the observation log does not. */
  stream(event: RuntimeEvent): void {
    this.publish(event);
  }

  private publish(event: RuntimeEvent): void {
    if (this.observer) {
      try {
        this.observer(event);
      } catch (error) {
        this.logger.warn({ code: 'E_RUNTIME_EVENT_OBSERVER', err: error }, 'onRuntimeEvent threw');
      }
    }
    this.bus.emit(event.type, event);
  }

  /** Writes the lines emit() holds for the end of this loop turn now. */
  flush(): void {
    this.log.flush();
  }

  close(): void {
    this.log.close();
  }

  private readonly writeFailed = (error: unknown): void => {
    this.logger.error({ code: 'E_RUNTIME_EVENT_WRITE', err: error, file: this.path }, 'cannot append to runtime-events.jsonl');
  };
}
