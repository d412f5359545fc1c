/**
 * The daemon's on-disk log of runtime events (issue 10: resumable SSE): every event the
 * orchestrator publishes gets an id, monotonic per state root and swarm (it continues after a
 * restart), and is appended to `<state-root>/workspaces/<workspaceId>/runtime-events.jsonl` as
 * `{id, event}`. A client reconnecting with `Last-Event-ID` is replayed what it missed from here.
 * The file is bounded by the swarm's retention (rotating-log.ts), and written once per loop turn.
 * Nothing here is state: losing it only shortens what can be replayed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TornTailReport } from '../../shared/durability/line-boundary.ts';
import { type RetentionLimits, RotatingLog } from '../../shared/durability/rotating-log.ts';
import type { StreamedEvent } from '../../shared/types/turns.ts';

export interface LoggedEvent {
  id: number;
  event: StreamedEvent;
}

export class RuntimeEventJournal {
  private readonly log: RotatingLog;
  private lastId = 0;

  /** `onTornTail`: the file's torn last line was cut before the first append (see line-boundary.ts). */
  constructor(dir: string, limits: RetentionLimits, onTornTail?: TornTailReport) {
    mkdirSync(dir, { recursive: true });
    this.log = new RotatingLog(join(dir, 'runtime-events.jsonl'), limits, Date.now, onTornTail);
    this.lastId = idOf(this.log.lastLine()) ?? 0;
  }

  /** The id of the latest event (0 before the first). */
  get latestId(): number {
    return this.lastId;
  }

  /** Appends and returns the event's id. */
  append(event: StreamedEvent): number {
    const id = ++this.lastId;
    // The stream still gets the event live; a failed write only loses its replay.
    this.log.appendSoon(`${JSON.stringify({ id, event })}\n`, () => {});
    return id;
  }

  /** Logged events with an id above `afterId`, oldest first. */
  since(afterId: number): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (const raw of this.log.lines()) {
      try {
        const value = JSON.parse(raw) as LoggedEvent;
        if (typeof value.id === 'number' && value.id > afterId && typeof value.event === 'object') out.push(value);
      } catch {
        // a torn line
      }
    }
    return out;
  }

  close(): void {
    this.log.close();
  }
}

function idOf(line: string | undefined): number | undefined {
  if (line === undefined) return undefined;
  const value = JSON.parse(line) as { id?: unknown };
  return typeof value.id === 'number' ? value.id : undefined;
}
