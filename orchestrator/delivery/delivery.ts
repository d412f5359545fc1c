/**
 * At-least-once delivery to agent instances (ARCHITECTURE §3): append to the durable inbox, then
 * send if the process was assigned; once it is (`runtime.assign` sent) send everything still
 * unacked, in order: the child runs what arrives before it is built once it is. An
 * event that was being processed during `MAX_DELIVERY_ATTEMPTS` crashes is dead-lettered so one
 * poison message cannot crash-loop an instance forever.
 * Group commit: the records of one loop turn are written together (one write per inbox), and the
 * events of that turn are sent right after, at the end of the turn — or at once when `sync()` is
 * called because an acceptance is about to be reported, and for a request that is the first
 * record of its loop turn. An event never leaves before its record.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import { type ErrorShape, runtimeError } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { instancePaths, workspaceDir } from '../../shared/state-paths.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import { DurableInbox } from './durable-inbox.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { warnTornTail } from '../../shared/durability/line-boundary.ts';

/** How soon an inbox the disk refused is tried again. */
const UNWRITTEN_RETRY_MS = 1_000;

export const MAX_DELIVERY_ATTEMPTS = 3;
export const MAX_OPEN_INBOX_FILES = 128;

export interface DeliveryOptions {
  stateRoot: string;
  workspaceId: string;
  logger: RootLogger;
  /** Swarm.spec.policy.durability.fsync (default batch). */
  fsync?: FsyncPolicy;
  /** `durability.retention.inboxCompactLines` (default 200). */
  inboxCompactLines?: number;
  /** An event was given up (the event ledger records it; the stream shows it). */
  onDeadLetter?(id: AgentId, event: AgentEvent | undefined, eventId: string, reason: string, error: ErrorShape): void;
  /** An event left the inbox, done or given up (cluster mode acks its JetStream message then). */
  onSettled?(id: AgentId, eventId: string): void;
}

/** An event to send once its inbox record is written, to the process incarnation that was ready for it. */
interface QueuedSend {
  proc: ManagedProcess;
  incarnation: number;
  inbox: DurableInbox;
  event: AgentEvent;
  from: string;
}

export class Delivery {
  private readonly inboxes = new Map<string, DurableInbox>();
  /** A process's inbox without building its key on every event; an inbox forgotten since is looked up again. */
  private readonly inboxByProcess = new WeakMap<ManagedProcess, DurableInbox>();
  private readonly forgotten = new WeakSet<DurableInbox>();
  /** Inboxes with records staged this loop turn, and the sends waiting for them. */
  private readonly staged = new Set<DurableInbox>();
  private queued: QueuedSend[] = [];
  private flushSoon: ReturnType<typeof setImmediate> | undefined;
  /** Why the disk refused an inbox's last write, until a write of it lands. */
  private readonly writeErrors = new Map<DurableInbox, unknown>();
  /** The next attempt at inboxes the disk refused (full). */
  private retryUnwritten: ReturnType<typeof setTimeout> | undefined;
  /** Monotonic use counter: the least recently used open inbox files are closed first. */
  private clock = 0;
  /** eventId → number of crashes while that event was the one being processed. */
  private readonly attempts = new Map<string, number>();
  /** process key → eventId currently being processed (from `runtime.turn.started`). */
  private readonly current = new Map<string, string>();

  private readonly fsync: FsyncPolicy;

  constructor(private readonly options: DeliveryOptions) {
    this.fsync = options.fsync ?? new FsyncPolicy();
  }

  /** Before an accepted event's id (or a reply) leaves the daemon: every inbox record is written and on disk. */
  sync(): void {
    this.commitAndSend();
    this.fsync.barrier();
  }

  /** sync() for a caller that tells the acceptance later (with a reply): the fsyncs run off the loop. */
  settle(): Promise<void> {
    this.commitAndSend();
    return this.fsync.settle();
  }

  inbox(id: AgentId): DurableInbox {
    const key = agentKey(id);
    let inbox = this.inboxes.get(key);
    if (inbox) {
      inbox.lastUsed = ++this.clock;
      return inbox;
    }
    const path = instancePaths(this.options.stateRoot, this.options.workspaceId, id.agent, id.instanceKey).inbox;
    inbox = DurableInbox.open(
      path,
      id.agent,
      id.instanceKey,
      (line, reason) => this.options.logger.warn({ inbox: path, line, reason }, 'skipped a malformed inbox line'),
      this.fsync,
      this.options.inboxCompactLines,
      warnTornTail(this.options.logger),
    );
    inbox.lastUsed = ++this.clock;
    this.inboxes.set(key, inbox);
    this.releaseIdleFiles();
    return inbox;
  }

  /**
   * Inboxes keep their file open for speed, but a swarm with thousands of conversations must not
   * hold thousands of descriptors: beyond MAX_OPEN_INBOX_FILES the least recently used ones close
   * (they reopen on their next write).
   */
  private releaseIdleFiles(): void {
    const open = [...this.inboxes.values()].filter((inbox) => inbox.isOpen);
    if (open.length <= MAX_OPEN_INBOX_FILES) return;
    open.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const inbox of open.slice(0, open.length - MAX_OPEN_INBOX_FILES)) inbox.close();
  }

  /**
   * Appends, then sends at the end of this loop turn (after the turn's records are written) when the
   * process was assigned; otherwise `flush` sends it with the assignment.
   */
  deliver(proc: ManagedProcess, event: AgentEvent, from: string): void {
    const inbox = this.inboxOf(proc);
    inbox.append(event);
    proc.touch();
    if (proc.assigned) this.queued.push({ proc, incarnation: proc.incarnation, inbox, event, from });
    // A request (someone waits for its answer) that is the first record of its loop turn is
    // written and sent at once: it waits for no batch nor for the rest of the loop turn (~0.05 ms).
    // Records behind it, and fire-and-forget sends (a flood of them), are grouped as before.
    const now = event.replyTo !== undefined && this.flushSoon === undefined;
    this.stage(inbox);
    if (now) this.writeAndSend();
  }

  /**
   * After sync()/settle(): when the disk refused the put record of `eventId`, the event is taken back
   * (not written, not sent, not run) and the refusal returned, for its submitter to be told.
   */
  takeBackUnwritten(id: AgentId, eventId: string): unknown {
    const inbox = this.inboxes.get(agentKey(id));
    if (inbox === undefined || !this.writeErrors.has(inbox) || !inbox.withdraw(eventId)) return undefined;
    this.queued = this.queued.filter((send) => send.event.id !== eventId);
    return this.writeErrors.get(inbox);
  }

  /** Right after `runtime.assign`: every unacked event, oldest first. */
  flush(proc: ManagedProcess): number {
    const inbox = this.inboxOf(proc);
    inbox.commit();
    const pending = inbox.unacked();
    for (const event of pending) this.send(proc, event, event.source.name);
    return pending.length;
  }

  /** `inbox` has a record to write: it is written (and what waits for it sent) at the end of this loop turn. */
  private stage(inbox: DurableInbox): void {
    this.staged.add(inbox);
    this.flushSoon ??= setImmediate(() => this.commitAndSend());
  }

  /** Writes every staged record (one write per inbox), then sends what waited for them, in order. */
  private commitAndSend(): void {
    if (this.flushSoon) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    this.writeAndSend();
  }

  /** commitAndSend() that leaves the end-of-loop-turn flush scheduled (for what is staged behind). */
  private writeAndSend(): void {
    const unwritten = new Set<DurableInbox>();
    for (const inbox of this.staged) {
      try {
        inbox.commit();
        this.writeErrors.delete(inbox);
      } catch (error) {
        unwritten.add(inbox);
        this.writeErrors.set(inbox, error);
        this.options.logger.error({ err: error, file: inbox.path }, 'an inbox could not be written (disk full?); its records stay staged and its events unsent, and the write is retried');
      }
    }
    this.staged.clear();
    for (const inbox of unwritten) this.staged.add(inbox);
    const sends = this.queued.filter((send) => !unwritten.has(send.inbox));
    // An event leaves only once its record is on disk: those of an unwritten inbox wait for the retry.
    this.queued = this.queued.filter((send) => unwritten.has(send.inbox));
    if (unwritten.size > 0) this.retryUnwritten ??= setTimeout(() => {
      this.retryUnwritten = undefined;
      this.commitAndSend();
    }, UNWRITTEN_RETRY_MS);
    for (const { proc, incarnation, inbox, event, from } of sends) {
      // Another incarnation got it from `flush` with its assignment; an event given up meanwhile stays unsent.
      if (proc.assigned && proc.incarnation === incarnation && inbox.has(event.id)) this.send(proc, event, from);
    }
  }

  markStarted(proc: ManagedProcess, eventId: string): void {
    this.current.set(proc.key, eventId);
  }

  /** The event whose turn began and has not finished, if this instance has one. */
  startedEvent(id: AgentId): string | undefined {
    return this.current.get(agentKey(id));
  }

  /** `runtime.turn.completed`: returns false for an unknown or already acked event. */
  ack(proc: ManagedProcess, eventId: string): boolean {
    if (this.current.get(proc.key) === eventId) this.current.delete(proc.key);
    this.attempts.delete(eventId);
    const inbox = this.inboxOf(proc);
    const acked = inbox.ack(eventId);
    if (acked) this.stage(inbox);
    return this.settled(proc.id, eventId, acked);
  }

  /** Whether `eventId` waits in the instance's inbox (delivered here and not yet done). */
  holds(id: AgentId, eventId: string): boolean {
    return this.inbox(id).get(eventId) !== undefined;
  }

  /**
   * After a crash: counts the attempt of the event that was being processed and dead-letters it
   * once it reached the limit. Returns the dead-lettered event, if any.
   */
  recordCrash(proc: ManagedProcess): AgentEvent | undefined {
    const eventId = this.current.get(proc.key);
    this.current.delete(proc.key);
    if (!eventId) return undefined;
    const inbox = this.inbox(proc.id);
    const event = inbox.get(eventId);
    if (!event) return undefined;
    const attempts = (this.attempts.get(eventId) ?? 0) + 1;
    this.attempts.set(eventId, attempts);
    if (attempts < MAX_DELIVERY_ATTEMPTS) return undefined;
    this.attempts.delete(eventId);
    const reason = `process crashed ${attempts} times while processing this event`;
    this.settled(proc.id, eventId, inbox.ack(eventId, reason));
    this.options.onDeadLetter?.(proc.id, event, eventId, reason, runtimeError('AGENT_CRASHED', reason));
    return event;
  }

  /** Unfinished events of an instance whose inbox is loaded (undefined otherwise: no file is read for it). */
  queuedIfLoaded(id: AgentId): number | undefined {
    return this.inboxes.get(agentKey(id))?.size;
  }

  pendingCount(id: AgentId): number {
    return this.inbox(id).size;
  }

  /**
   * Gives up an event whose caller was already answered with an error it cannot retry behind
   * (e.g. the agent cannot start): it must not run later behind that caller's back.
   */
  deadLetter(id: AgentId, eventId: string, reason: string, error: ErrorShape): boolean {
    this.attempts.delete(eventId);
    const inbox = this.inbox(id);
    const event = inbox.get(eventId);
    const given = this.settled(id, eventId, inbox.ack(eventId, reason));
    if (given) this.options.onDeadLetter?.(id, event, eventId, reason, error);
    return given;
  }

  /** Gives up every event still queued for the instance (instance delete): none of them will run. */
  deadLetterAll(id: AgentId, reason: string, error: ErrorShape): string[] {
    return this.inbox(id)
      .unacked()
      .filter((event) => this.deadLetter(id, event.id, reason, error))
      .map((event) => event.id);
  }

  /** Instances with unacked events on disk (recovered after a daemon restart). */
  recoverPending(): Array<{ agent: string; instanceKey: string; pending: number }> {
    const dir = join(workspaceDir(this.options.stateRoot, this.options.workspaceId), 'instances');
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    const found: Array<{ agent: string; instanceKey: string; pending: number }> = [];
    for (const name of names.sort()) {
      const identity = DurableInbox.peekIdentity(join(dir, name, 'inbox.jsonl'));
      if (identity) found.push(identity);
    }
    return found;
  }

  /** Forgets an instance's inbox (instance delete). */
  forget(id: AgentId): void {
    const key = agentKey(id);
    const inbox = this.inboxes.get(key);
    if (!inbox) return;
    inbox.close();
    this.staged.delete(inbox);
    this.forgotten.add(inbox);
    this.inboxes.delete(key);
  }

  /** Daemon stop: every record written; unsent events stay in their inboxes for the next start. */
  close(): void {
    if (this.flushSoon) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    if (this.retryUnwritten) clearTimeout(this.retryUnwritten);
    this.queued = [];
    this.staged.clear();
    for (const inbox of this.inboxes.values()) {
      inbox.close();
      this.forgotten.add(inbox);
    }
    this.inboxes.clear();
  }

  /** `inbox(proc.id)` for the hot path. */
  private inboxOf(proc: ManagedProcess): DurableInbox {
    const known = this.inboxByProcess.get(proc);
    if (known && !this.forgotten.has(known)) {
      known.lastUsed = ++this.clock;
      return known;
    }
    const inbox = this.inbox(proc.id);
    this.inboxByProcess.set(proc, inbox);
    return inbox;
  }

  private settled(id: AgentId, eventId: string, acked: boolean): boolean {
    if (acked) this.options.onSettled?.(id, eventId);
    return acked;
  }

  private send(proc: ManagedProcess, event: AgentEvent, from: string): void {
    if (!proc.send({ type: 'event', from, to: proc.name, payload: event })) {
      this.options.logger.warn({ process: proc.key, eventId: event.id, traceId: event.traceId }, 'send failed; the event stays in the inbox for redelivery');
    }
  }
}
