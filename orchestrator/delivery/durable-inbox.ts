/**
 * Per-instance durable inbox (ARCHITECTURE §3): every AgentEvent is appended before delivery and
 * stays "unacked" until the agent reports `runtime.turn.completed`. After a crash (of the agent or
 * of the daemon) the unacked events are redelivered in order. Appends survive a process crash
 * (page cache); when they reach the disk is the swarm's durability policy (fsync-policy.ts).
 * The file stays small: once it has `compactAfterLines` lines and most are settled, it is rewritten
 * with only the unacked events (a new file renamed over the old one, so a crash mid-way leaves
 * either whole file — unacked events are never lost).
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { DEFAULT_INBOX_COMPACT_LINES } from '../../shared/durability/rotating-log.ts';
import { validateAgentEvent } from '../../shared/ipc/ipc-schemas.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { isJsonObject } from '../../shared/types/json.ts';

export type InboxLine =
  | { op: 'put'; agent: string; instanceKey: string; event: AgentEvent }
  | { op: 'ack'; eventId: string; dead?: string };

/** A file with lines beyond this many times its pending events is mostly settled: worth rewriting. */
const SETTLED_RATIO = 4;

export class DurableInbox {
  private readonly pending = new Map<string, AgentEvent>();
  private lines = 0;
  /** Set by Delivery on every use, to close the least recently used files first. */
  lastUsed = 0;
  /** Kept open: an open/append/close per event was most of the routing cost. */
  private fd: number | undefined;
  /** Identity written in the file's records (read back after a daemon restart). */
  private recorded: { agent: string; instanceKey: string } | undefined;
  /**
   * Ack lines not yet on disk. Acks may lag (a lost ack only causes a redelivery, which the agent
   * recognises by event id), so they are written with the next put or on the next loop turn;
   * puts are written before delivery, always.
   */
  private unwrittenAcks = '';
  private ackFlush: ReturnType<typeof setImmediate> | undefined;

  private constructor(
    readonly path: string,
    readonly agent: string,
    readonly instanceKey: string,
    private readonly fsync: FsyncPolicy,
    private readonly compactAfterLines: number,
  ) {}

  /** Opens (and recovers) the inbox file; malformed lines are skipped and reported. */
  static open(
    path: string,
    agent: string,
    instanceKey: string,
    onBadLine?: (lineNo: number, reason: string) => void,
    fsync: FsyncPolicy = new FsyncPolicy('never'),
    compactAfterLines: number = DEFAULT_INBOX_COMPACT_LINES,
  ): DurableInbox {
    const inbox = new DurableInbox(path, agent, instanceKey, fsync, compactAfterLines);
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      let lineNo = 0;
      for (const raw of text.split('\n')) {
        lineNo += 1;
        if (raw.trim() === '') continue;
        inbox.lines += 1;
        const line = parseInboxLine(raw);
        if (!line) {
          onBadLine?.(lineNo, 'not a valid inbox record');
          continue;
        }
        if (line.op === 'put') {
          inbox.pending.set(line.event.id, line.event);
          inbox.recorded ??= { agent: line.agent, instanceKey: line.instanceKey };
        } else inbox.pending.delete(line.eventId);
      }
    }
    return inbox;
  }

  /** Reads only the agent/instance identity of an inbox file with pending events (daemon start). */
  static peekIdentity(path: string): { agent: string; instanceKey: string; pending: number } | undefined {
    const inbox = DurableInbox.open(path, '', '');
    if (inbox.pending.size === 0 || !inbox.recorded) return undefined;
    return { ...inbox.recorded, pending: inbox.pending.size };
  }

  /** The agent/instance identity the file's records name, pending or not (CLI views of state). */
  static recordedIdentity(path: string): { agent: string; instanceKey: string } | undefined {
    return DurableInbox.open(path, '', '').recorded;
  }

  append(event: AgentEvent): void {
    this.write(`${JSON.stringify({ op: 'put', agent: this.agent, instanceKey: this.instanceKey, event })}\n`);
    this.pending.set(event.id, event);
  }

  /** Returns false when the event was not pending (already acked, or never here). */
  ack(eventId: string, deadLetterReason?: string): boolean {
    if (!this.pending.has(eventId)) return false;
    this.pending.delete(eventId);
    const line: InboxLine = deadLetterReason ? { op: 'ack', eventId, dead: deadLetterReason } : { op: 'ack', eventId };
    this.unwrittenAcks += `${JSON.stringify(line)}\n`;
    // A dead letter is a decision worth persisting at once.
    if (deadLetterReason) this.flushAcks();
    else this.ackFlush ??= setImmediate(() => this.flushAcks());
    return true;
  }

  /** Writes lagging ack lines; compacts the file once it is long and mostly settled. */
  flushAcks(): void {
    if (this.ackFlush) clearImmediate(this.ackFlush);
    this.ackFlush = undefined;
    if (this.unwrittenAcks === '') return;
    this.write('');
    if (this.lines < this.compactAfterLines || this.fd === undefined) return;
    if (this.pending.size === 0) {
      ftruncateSync(this.fd, 0);
      this.lines = 0;
    } else if (this.lines >= SETTLED_RATIO * this.pending.size) this.rewritePending();
  }

  /** A busy instance always has something pending: rewrite its file with only that. */
  private rewritePending(): void {
    const identity = this.recorded ?? { agent: this.agent, instanceKey: this.instanceKey };
    const text = [...this.pending.values()].map((event) => `${JSON.stringify({ op: 'put', ...identity, event })}\n`).join('');
    const next = `${this.path}.compacting`;
    const fd = openSync(next, 'w');
    try {
      writeSync(fd, text);
      // The rename must not outrun the data it points to, or a power loss could empty the inbox.
      if (this.fsync.mode !== 'never') fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.fd !== undefined) {
      this.fsync.closing(this.fd);
      closeSync(this.fd);
    }
    renameSync(next, this.path);
    this.fd = openSync(this.path, 'a');
    this.lines = this.pending.size;
  }

  has(eventId: string): boolean {
    return this.pending.has(eventId);
  }

  get(eventId: string): AgentEvent | undefined {
    return this.pending.get(eventId);
  }

  /** Pending events in arrival order. */
  unacked(): AgentEvent[] {
    return [...this.pending.values()];
  }

  get size(): number {
    return this.pending.size;
  }

  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /** Releases the file descriptor (evicted, instance deleted, or the daemon stops); reopens on the next write. */
  close(): void {
    this.flushAcks();
    if (this.fd !== undefined) {
      this.fsync.closing(this.fd);
      closeSync(this.fd);
    }
    this.fd = undefined;
  }

  /** Appends `text` (one line, or '' to flush acks only) after any lagging ack lines, in one write. */
  private write(text: string): void {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'a');
    }
    const acks = this.unwrittenAcks;
    this.unwrittenAcks = '';
    writeSync(this.fd, acks + text);
    this.fsync.wrote(this.fd);
    this.lines += (acks.match(/\n/g)?.length ?? 0) + (text === '' ? 0 : 1);
  }
}

/** One line of an inbox file, or undefined when it is not a valid record. */
export function parseInboxLine(raw: string): InboxLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const record = value;
  if (record.op === 'ack' && typeof record.eventId === 'string') return { op: 'ack', eventId: record.eventId };
  if (record.op === 'put' && typeof record.agent === 'string' && typeof record.instanceKey === 'string') {
    const event = validateAgentEvent(record.event);
    if (event.ok) return { op: 'put', agent: record.agent, instanceKey: record.instanceKey, event: event.value };
  }
  return undefined;
}
