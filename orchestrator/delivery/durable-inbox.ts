/**
 * Per-instance durable inbox (ARCHITECTURE §3): every AgentEvent is appended before delivery and
 * stays "unacked" until the agent reports `runtime.turn.completed`. After a crash (of the agent or
 * of the daemon) the unacked events are redelivered in order. Appends survive a process crash
 * (page cache); when they reach the disk is the swarm's durability policy (fsync-policy.ts).
 * Records are staged and written together by `commit()` (one write for everything staged in a
 * loop turn, at the latest on the next turn): Delivery commits before it sends an event or reports
 * it accepted, so nothing leaves the daemon that is not in the file.
 * The file stays small: once it has `compactAfterLines` lines and most are settled, it is rewritten
 * with only the unacked events (a new file renamed over the old one, so a crash mid-way leaves
 * either whole file — unacked events are never lost).
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { appendWhole, cutTornTail, type TornTailReport } from '../../shared/durability/line-boundary.ts';
import { DEFAULT_INBOX_COMPACT_LINES } from '../../shared/durability/rotating-log.ts';
import { validateAgentEvent } from '../../shared/ipc/ipc-schemas.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { isJsonObject } from '../../shared/types/json.ts';

export type InboxLine =
  | { op: 'put'; agent: string; instanceKey: string; event: AgentEvent }
  | { op: 'ack'; eventId: string; dead?: string };

interface PendingEntry {
  event: AgentEvent;
  /** Its put record, when this inbox wrote it under the identity compaction writes (reused then). */
  record: string | undefined;
  /** `FsyncPolicy.syncs` when it was staged: an fsync since may have put it on disk. */
  syncsBefore: number;
}

/** `syncsBefore` of events read back from the file: on disk, maybe promised. */
const RECOVERED = -1;

/** A file with lines beyond this many times its pending events is mostly settled: worth rewriting. */
const SETTLED_RATIO = 4;

export class DurableInbox {
  /** Unacked events in arrival order. */
  private readonly pending = new Map<string, PendingEntry>();
  private lines = 0;
  /** Set by Delivery on every use, to close the least recently used files first. */
  lastUsed = 0;
  /** Kept open: an open/append/close per event was most of the routing cost. */
  private fd: number | undefined;
  /** Identity written in the file's records (read back after a daemon restart). */
  private recorded: { agent: string; instanceKey: string } | undefined;
  /** Put and ack records not yet written, in the order they happened. */
  private staged = '';
  private stagedLines = 0;
  private stagedAcks = 0;
  /** The staged put records, by event id: one the disk refused can be taken back (withdraw). */
  private readonly stagedPuts = new Map<string, string>();
  private commitSoon: ReturnType<typeof setImmediate> | undefined;

  private constructor(
    readonly path: string,
    readonly agent: string,
    readonly instanceKey: string,
    private readonly fsync: FsyncPolicy,
    private readonly compactAfterLines: number,
    private readonly onTornTail: TornTailReport | undefined,
  ) {}

  /**
   * Opens (and recovers) the inbox file; malformed lines are skipped and reported. Reading changes
   * nothing (the CLI reads inboxes the daemon writes): a torn last line is cut at the first write.
   */
  static open(
    path: string,
    agent: string,
    instanceKey: string,
    onBadLine?: (lineNo: number, reason: string) => void,
    fsync: FsyncPolicy = new FsyncPolicy('never'),
    compactAfterLines: number = DEFAULT_INBOX_COMPACT_LINES,
    onTornTail?: TornTailReport,
  ): DurableInbox {
    const inbox = new DurableInbox(path, agent, instanceKey, fsync, compactAfterLines, onTornTail);
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
          inbox.pending.set(line.event.id, { event: line.event, record: undefined, syncsBefore: RECOVERED });
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

  /** Stages the event's put record: in the file after `commit()` (at the latest on the next loop turn). */
  append(event: AgentEvent): void {
    const record = `${JSON.stringify({ op: 'put', agent: this.agent, instanceKey: this.instanceKey, event })}\n`;
    this.stage(record);
    this.stagedPuts.set(event.id, record);
    // Compaction rewrites puts under the file's first identity: reuse this record only when it is that one.
    const own = this.recorded === undefined || (this.recorded.agent === this.agent && this.recorded.instanceKey === this.instanceKey);
    this.pending.set(event.id, { event, record: own ? record : undefined, syncsBefore: this.fsync.syncs });
  }

  /** Returns false when the event was not pending (already acked, or never here). */
  ack(eventId: string, deadLetterReason?: string): boolean {
    if (!this.pending.has(eventId)) return false;
    this.pending.delete(eventId);
    const line: InboxLine = deadLetterReason ? { op: 'ack', eventId, dead: deadLetterReason } : { op: 'ack', eventId };
    // Acks may lag (a lost ack only causes a redelivery, which the agent recognises by event id).
    this.stage(`${JSON.stringify(line)}\n`);
    this.stagedAcks += 1;
    // A dead letter is a decision worth persisting at once.
    if (deadLetterReason) this.commit();
    return true;
  }

  /**
   * Takes back an event whose put record is still unwritten (the disk refused it): its submitter is
   * told it was not accepted, so it must not run later. False when it was written (or never here).
   */
  withdraw(eventId: string): boolean {
    const record = this.stagedPuts.get(eventId);
    if (record === undefined) return false;
    this.stagedPuts.delete(eventId);
    this.staged = this.staged.replace(record, '');
    this.stagedLines -= 1;
    this.pending.delete(eventId);
    return true;
  }

  /** Whether records wait to be written. */
  get hasStaged(): boolean {
    return this.staged !== '';
  }

  /** Writes every staged record in one write; compacts the file once it is long and mostly settled. */
  commit(): void {
    if (this.commitSoon) clearImmediate(this.commitSoon);
    this.commitSoon = undefined;
    if (this.staged === '') return;
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      // Only the daemon appends here: a torn last line (a crash mid-write) would swallow these records.
      cutTornTail(this.path, this.onTornTail);
      this.fd = openSync(this.path, 'a');
    }
    // Written whole or not at all (a full disk): what is staged stays staged for the next commit.
    appendWhole(this.fd, this.staged);
    this.fsync.wrote(this.fd);
    const settled = this.stagedAcks > 0;
    this.lines += this.stagedLines;
    this.staged = '';
    this.stagedLines = 0;
    this.stagedAcks = 0;
    this.stagedPuts.clear();
    // Only acks make a file worth compacting; a commit of puts alone would find them all pending.
    if (!settled || this.lines < this.compactAfterLines) return;
    if (this.pending.size === 0) {
      ftruncateSync(this.fd, 0);
      this.lines = 0;
    } else if (this.lines >= SETTLED_RATIO * this.pending.size) this.rewritePending();
  }

  /** A busy instance always has something pending: rewrite its file with only that. */
  private rewritePending(): void {
    const identity = this.recorded ?? { agent: this.agent, instanceKey: this.instanceKey };
    let text = '';
    let oldest: PendingEntry | undefined;
    for (const entry of this.pending.values()) {
      oldest ??= entry;
      text += entry.record ?? `${JSON.stringify({ op: 'put', ...identity, event: entry.event })}\n`;
    }
    const next = `${this.path}.compacting`;
    const fd = openSync(next, 'w');
    try {
      writeSync(fd, text);
      // The rename must not outrun the data it points to, or a power loss could empty the inbox —
      // unless no fsync at all ran since the oldest pending record was staged: then none of them was
      // on disk, so none was promised to anyone (batch: only work in flight may be lost).
      const mayBeOnDisk = oldest === undefined || oldest.syncsBefore !== this.fsync.syncs;
      if (this.fsync.mode === 'always' || (this.fsync.mode === 'batch' && mayBeOnDisk)) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.fd !== undefined) {
      // The old file's unsynced lines are all in the new one or settled.
      this.fsync.superseded(this.fd);
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
    return this.pending.get(eventId)?.event;
  }

  /** Pending events in arrival order. */
  unacked(): AgentEvent[] {
    return Array.from(this.pending.values(), (entry) => entry.event);
  }

  get size(): number {
    return this.pending.size;
  }

  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /** Releases the file descriptor (evicted, instance deleted, or the daemon stops); reopens on the next write. */
  close(): void {
    try {
      this.commit();
    } catch {
      // The disk refused the staged records: the file stays open for Delivery's next attempt.
      return;
    }
    if (this.fd !== undefined) {
      this.fsync.closing(this.fd);
      closeSync(this.fd);
    }
    this.fd = undefined;
  }

  private stage(record: string): void {
    this.staged += record;
    this.stagedLines += 1;
    this.commitSoon ??= setImmediate(() => {
      try {
        this.commit();
      } catch {
        // Refused by the disk: the records stay staged; Delivery logs it and tries again.
      }
    });
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
