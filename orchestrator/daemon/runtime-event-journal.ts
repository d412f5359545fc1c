/**
 * The daemon's on-disk log of runtime events (issue 10: resumable SSE): every event the
 * orchestrator publishes gets an id, monotonic per state root and swarm (it continues after a restart), and is appended to
 * `<state-root>/workspaces/<workspaceId>/runtime-events.jsonl` as `{id, event}`. A client reconnecting with
 * `Last-Event-ID` is replayed what it missed from here. The file is bounded: past `maxBytes` it
 * becomes `runtime-events.1.jsonl` (the previous generation is dropped), so replay reaches back at
 * least `maxBytes` of events. Nothing here is state: losing it only shortens what can be replayed.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StreamedEvent } from '../../shared/types/turns.ts';

export const DEFAULT_EVENT_LOG_MAX_BYTES = 32 * 1024 * 1024;
/** The tail read to find the last id on start. */
const TAIL_BYTES = 64 * 1024;

export interface LoggedEvent {
  id: number;
  event: StreamedEvent;
}

export class RuntimeEventJournal {
  private readonly current: string;
  private readonly previous: string;
  private fd: number | undefined;
  private bytes = 0;
  private lastId = 0;

  constructor(
    dir: string,
    private readonly maxBytes: number = DEFAULT_EVENT_LOG_MAX_BYTES,
  ) {
    mkdirSync(dir, { recursive: true });
    this.current = join(dir, 'runtime-events.jsonl');
    this.previous = join(dir, 'runtime-events.1.jsonl');
    this.lastId = Math.max(lastIdIn(this.previous), lastIdIn(this.current));
    if (existsSync(this.current)) this.bytes = readFileSync(this.current).byteLength;
  }

  /** Appends and returns the event's id. */
  append(event: StreamedEvent): number {
    const id = ++this.lastId;
    const line = `${JSON.stringify({ id, event })}\n`;
    try {
      this.fd ??= openSync(this.current, 'a');
      writeSync(this.fd, line);
      this.bytes += Buffer.byteLength(line);
      if (this.bytes > this.maxBytes) this.rotate();
    } catch {
      // The stream still gets the event live; only its replay is lost.
    }
    return id;
  }

  /** Logged events with an id above `afterId`, oldest first. */
  since(afterId: number): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (const file of [this.previous, this.current]) {
      if (!existsSync(file)) continue;
      for (const raw of readFileSync(file, 'utf8').split('\n')) {
        if (raw.trim() === '') continue;
        try {
          const value = JSON.parse(raw) as LoggedEvent;
          if (typeof value.id === 'number' && value.id > afterId && typeof value.event === 'object') out.push(value);
        } catch {
          // a torn line
        }
      }
    }
    return out;
  }

  get latestId(): number {
    return this.lastId;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private rotate(): void {
    this.close();
    rmSync(this.previous, { force: true });
    renameSync(this.current, this.previous);
    this.bytes = 0;
  }
}

function lastIdIn(file: string): number {
  if (!existsSync(file)) return 0;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n').reverse();
    for (const raw of lines) {
      try {
        const value = JSON.parse(raw) as { id?: unknown };
        if (typeof value.id === 'number') return value.id;
      } catch {
        // the first line of the tail may be cut; keep looking
      }
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}
