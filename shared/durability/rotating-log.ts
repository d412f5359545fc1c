/**
 * An append-only JSONL file bounded by size and age (`Swarm.spec.policy.durability.retention`):
 * once the current file passes `maxBytes`, or its generation is older than `maxAgeMs`, it becomes
 * `<name>.1.jsonl` and the generation before that is dropped. So the log keeps at least the newest
 * `maxBytes` (or `maxAgeMs`) of records and at most about twice that. Only for observation logs
 * (runtime events): nothing here is state, so losing a generation only shortens what can be read.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { appendWhole, cutTornTail, type TornTailReport } from './line-boundary.ts';

export interface RetentionLimits {
  maxBytes: number;
  maxAgeMs: number;
}

/** `Swarm.spec.policy.durability.retention` defaults. */
export const DEFAULT_RUNTIME_EVENTS_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_RUNTIME_EVENTS_MAX_AGE_HOURS = 7 * 24;
export const DEFAULT_INBOX_COMPACT_LINES = 200;

/** The runtime-event log limits of a swarm's durability plan. */
export function retentionLimits(durability: { retention: { runtimeEventsMaxBytes: number; runtimeEventsMaxAgeMs: number } }): RetentionLimits {
  return { maxBytes: durability.retention.runtimeEventsMaxBytes, maxAgeMs: durability.retention.runtimeEventsMaxAgeMs };
}

/** Read to find the newest record when a log is reopened. */
const TAIL_BYTES = 64 * 1024;

/** appendSoon() writes at once beyond this much held text. */
const MAX_PENDING_CHARS = 64 * 1024;

/** Logs holding lines appendSoon() has not written yet: written when the process exits. */
const unflushed = new Set<RotatingLog>();
let exitHookInstalled = false;

export class RotatingLog {
  readonly previous: string;
  private fd: number | undefined;
  private bytes = 0;
  /** When the current generation began (its first record, or the rotation that started it). */
  private generationStartedAt: number;
  private lastWriteAt: number;
  /** The newest record of the previous generation (its file's mtime when opened). */
  private previousLastWriteAt: number | undefined;
  /** appendSoon() lines waiting for the end of this loop turn. */
  private pending = '';
  private flushSoon: ReturnType<typeof setImmediate> | undefined;
  private onFlushError: (error: unknown) => void = () => {};

  constructor(
    readonly path: string,
    private readonly limits: RetentionLimits,
    private readonly now: () => number = Date.now,
    /** Its torn last line was cut before the first append (see line-boundary.ts). */
    private readonly onTornTail?: TornTailReport,
  ) {
    this.previous = path.replace(/\.jsonl$/, '.1.jsonl');
    this.generationStartedAt = this.now();
    this.lastWriteAt = this.now();
    if (existsSync(this.previous)) this.previousLastWriteAt = statSync(this.previous).mtimeMs;
    if (existsSync(path)) {
      const stat = statSync(path);
      this.bytes = stat.size;
      this.lastWriteAt = stat.mtimeMs;
      // The previous generation's last write is when this one began; else the file's birth.
      const began = this.previousLastWriteAt ?? (stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs);
      this.generationStartedAt = Math.min(began, this.now());
    }
    this.dropExpiredPrevious();
  }

  /** Appends lines (each with its newline); rotates first when the current generation is full or old. */
  append(line: string): void {
    if (this.bytes > 0 && (this.bytes >= this.limits.maxBytes || this.now() - this.generationStartedAt >= this.limits.maxAgeMs)) this.rotate();
    if (this.fd === undefined) {
      // A torn last line (a crash mid-write) would swallow the next record: cut once, at open.
      if (this.bytes > 0) this.bytes -= cutTornTail(this.path, this.onTornTail);
      this.fd = openSync(this.path, 'a');
      if (this.bytes === 0) this.generationStartedAt = this.now();
    }
    this.bytes += appendWhole(this.fd, line);
    this.lastWriteAt = this.now();
  }

  /**
   * append() at the end of this loop turn, together with the turn's other lines in one write: a
   * turn's runtime events cost one write instead of one each. `onError` hears of a failed write.
   */
  appendSoon(line: string, onError: (error: unknown) => void): void {
    this.pending += line;
    this.onFlushError = onError;
    // A burst keeps neither memory nor the size bound waiting for the end of the loop turn.
    if (this.pending.length >= MAX_PENDING_CHARS) {
      this.flush();
      return;
    }
    if (this.flushSoon) return;
    this.flushSoon = setImmediate(() => this.flush());
    unflushed.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const log of unflushed) log.flush();
      });
    }
  }

  /** Writes what appendSoon() holds now. */
  flush(): void {
    if (this.flushSoon) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    unflushed.delete(this);
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    try {
      this.append(lines);
    } catch (error) {
      this.onFlushError(error);
    }
  }

  /** Lines of both generations, oldest first (a torn last line included: callers skip it). */
  lines(): string[] {
    this.flush();
    const out: string[] = [];
    for (const file of [this.previous, this.path]) {
      if (!existsSync(file)) continue;
      for (const raw of readFileSync(file, 'utf8').split('\n')) if (raw.trim() !== '') out.push(raw);
    }
    return out;
  }

  /** The newest complete line on disk (either generation), for resuming counters after a restart. */
  lastLine(): string | undefined {
    return lastLineOf(this.path) ?? lastLineOf(this.previous);
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private rotate(): void {
    this.close();
    rmSync(this.previous, { force: true });
    renameSync(this.path, this.previous);
    this.previousLastWriteAt = this.lastWriteAt;
    this.bytes = 0;
    this.generationStartedAt = this.now();
    this.dropExpiredPrevious();
  }

  /** A previous generation whose newest record is older than maxAge holds nothing worth keeping. */
  private dropExpiredPrevious(): void {
    if (this.previousLastWriteAt !== undefined && this.now() - this.previousLastWriteAt >= this.limits.maxAgeMs) {
      rmSync(this.previous, { force: true });
      this.previousLastWriteAt = undefined;
    }
  }
}

function lastLineOf(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n').reverse();
    // The last line may be torn and the first of the tail cut: the newest one that parses wins.
    for (const raw of lines) {
      try {
        JSON.parse(raw);
        return raw;
      } catch {
        // keep looking
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
