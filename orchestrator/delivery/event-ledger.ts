/**
 * What became of every event accepted from outside the swarm (HTTP, CLI, connectors) — issue 10:
 * `queued` → `running` → `done` (with the turn's reply) or `dead` (dead-lettered), and the
 * idempotency keys that map a retried submission to the event it already created. One JSONL file
 * per workspace (`event-ledger.jsonl`), appended under the durability policy and read back on
 * start, so `GET /v1/events/{id}` and a retry with the same key answer alike after a daemon
 * restart. Records and keys live for 24 h after their event settled; the file is rewritten without
 * the expired ones when it is opened and whenever it has grown past a bound.
 * Cluster mode: an event the cluster refused (503) was not accepted: its record goes, and a retry
 * under its key takes its id again (`refusedUnder`), so that JetStream's msgID dedupe runs it once
 * if a refused attempt landed after all.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ErrorShape, errorShapeSchema } from '../../shared/errors/error-shape.ts';
import { appendWhole } from '../../shared/durability/line-boundary.ts';
import { isRuntimeErrorCode, runtimeError } from '../../shared/errors/index.ts';
import type { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import { failureOutcome } from '../../shared/ipc/reply-events.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Rewrite the file once it holds this many more lines than live records. */
const COMPACT_SLACK_LINES = 5_000;

export type EventState = 'queued' | 'running' | 'done' | 'dead';

export interface EventRecord {
  eventId: string;
  state: EventState;
  agent: string;
  instanceKey: string;
  traceId: string;
  acceptedAt: string;
  idempotencyKey?: string;
  /** With a key: the digest of the input it was first sent with (request-digest.ts). */
  inputDigest?: string;
  /** The turn's answer once `done`. */
  reply?: ReplyOutcome;
  /** Why it was given up, once `dead`. */
  reason?: string;
  /** The error it was given up with: a retry under its key gets it again. */
  error?: ErrorShape;
  /** The code alone, as ledgers before the whole error was kept wrote it (AGENT_CRASHED when neither is there). */
  code?: string;
  settledAt?: string;
}

type LedgerLine =
  | { op: 'accepted'; eventId: string; agent: string; instanceKey: string; traceId: string; at: string; idempotencyKey?: string; inputDigest?: string }
  | { op: 'running'; eventId: string }
  | { op: 'done'; eventId: string; reply: ReplyOutcome; at: string }
  | { op: 'dead'; eventId: string; reason: string; at: string; code?: string; error?: ErrorShape }
  | { op: 'refused'; eventId: string; at: string };

/** An event the cluster refused, kept for a retry under its idempotency key. */
export interface RefusedEvent {
  eventId: string;
  agent: string;
  instanceKey: string;
  traceId: string;
  acceptedAt: string;
  idempotencyKey: string;
  refusedAt: string;
}

const str = { type: 'string' } as const;
const isLine = compiledValidator<LedgerLine>({
  options: { allErrors: true, strict: false },
  refs: [errorShapeSchema],
  schema: {
    oneOf: [
      { type: 'object', required: ['op', 'eventId', 'agent', 'instanceKey', 'traceId', 'at'], properties: { op: { const: 'accepted' }, eventId: str, agent: str, instanceKey: str, traceId: str, at: str, idempotencyKey: str, inputDigest: str } },
      { type: 'object', required: ['op', 'eventId'], properties: { op: { const: 'running' }, eventId: str } },
      {
        type: 'object',
        required: ['op', 'eventId', 'reply', 'at'],
        properties: {
          op: { const: 'done' },
          eventId: str,
          at: str,
          reply: { type: 'object', required: ['status', 'output'], properties: { status: { enum: ['ok', 'error', 'timeout'] }, output: str, turnId: str, traceId: str, error: { $ref: errorShapeSchema.$id } } },
        },
      },
      { type: 'object', required: ['op', 'eventId', 'reason', 'at'], properties: { op: { const: 'dead' }, eventId: str, reason: str, at: str, code: str, error: { $ref: errorShapeSchema.$id } } },
      { type: 'object', required: ['op', 'eventId', 'at'], properties: { op: { const: 'refused' }, eventId: str, at: str } },
    ],
  },
});

export class EventLedger {
  private readonly records = new Map<string, EventRecord>();
  private readonly byKey = new Map<string, string>();
  private readonly refusedByKey = new Map<string, RefusedEvent>();
  private readonly waiters = new Map<string, Array<(outcome: ReplyOutcome) => void>>();
  private fd: number | undefined;
  private lines = 0;
  /** Records the disk refused, in order (see append). */
  private unwritten = '';

  constructor(
    private readonly path: string,
    private readonly fsync: FsyncPolicy,
    private readonly now: () => number = Date.now,
    /** Hears of a record the disk refused (full): kept in memory and written with the next one that lands. */
    private readonly onWriteError?: (error: unknown) => void,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) {
      for (const raw of readFileSync(path, 'utf8').split('\n')) {
        if (raw.trim() === '') continue;
        try {
          const value: unknown = JSON.parse(raw);
          if (isLine(value)) this.apply(value);
        } catch {
          // a torn last line (crash mid-write): the record it started is incomplete anyway
        }
      }
      this.compact();
    }
  }

  get(eventId: string): EventRecord | undefined {
    return this.records.get(eventId);
  }

  /** The event an idempotency key already created, within the window. */
  findByKey(idempotencyKey: string): EventRecord | undefined {
    const eventId = this.byKey.get(idempotencyKey);
    return eventId === undefined ? undefined : this.records.get(eventId);
  }

  /** The event the cluster refused under this idempotency key, within the window. */
  refusedUnder(idempotencyKey: string): RefusedEvent | undefined {
    return this.refusedByKey.get(idempotencyKey);
  }

  /**
   * The cluster did not accept the event (its caller got 503): it is not tracked, and whoever waits
   * for its outcome (a retry under its key) learns so now, with `outcome`.
   */
  refused(eventId: string, outcome: ReplyOutcome): void {
    const record = this.records.get(eventId);
    if (!record || record.state !== 'queued') return;
    this.append({ op: 'refused', eventId, at: new Date(this.now()).toISOString() });
    const waiting = this.waiters.get(eventId);
    this.waiters.delete(eventId);
    for (const resolve of waiting ?? []) resolve(outcome);
  }

  accepted(record: { eventId: string; agent: string; instanceKey: string; traceId: string; idempotencyKey?: string; inputDigest?: string }): void {
    // An event is accepted once its record is on disk: a refused write is the caller's error.
    this.append({ op: 'accepted', ...record, at: new Date(this.now()).toISOString() }, 'throw');
  }

  /** `runtime.turn.started` of a tracked event. */
  running(eventId: string): void {
    const record = this.records.get(eventId);
    if (!record || record.state !== 'queued') return;
    this.append({ op: 'running', eventId });
  }

  done(eventId: string, reply: ReplyOutcome): void {
    const record = this.records.get(eventId);
    if (!record || record.state === 'done' || record.state === 'dead') return;
    const { result: _controlOnly, ...stored } = reply;
    this.append({ op: 'done', eventId, reply: stored, at: new Date(this.now()).toISOString() });
  }

  dead(eventId: string, reason: string, error?: ErrorShape): void {
    const record = this.records.get(eventId);
    if (!record || record.state === 'done' || record.state === 'dead') return;
    // `code` too: an older goondan reading this ledger knows only that.
    this.append({ op: 'dead', eventId, reason, at: new Date(this.now()).toISOString(), ...(error !== undefined ? { code: error.code, error } : {}) });
  }

  /** Resolves with the event's reply once it settled (at once when it has). */
  outcome(eventId: string): Promise<ReplyOutcome> {
    const record = this.records.get(eventId);
    const settled = record ? settledOutcome(record) : failureOutcome(runtimeError('INVALID_REQUEST', `unknown event ${eventId}`));
    if (settled) return Promise.resolve(settled);
    return new Promise((resolve) => {
      const list = this.waiters.get(eventId) ?? [];
      list.push(resolve);
      this.waiters.set(eventId, list);
    });
  }

  /** Before an answer that depends on these records leaves the daemon. */
  sync(): void {
    if (this.unwritten !== '') this.writeUnwritten();
    this.fsync.barrier();
  }

  close(): void {
    if (this.fd === undefined) return;
    if (this.unwritten !== '') this.writeUnwritten();
    this.fsync.closing(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * `keep`: what became of an event is known (its turn ran): when the disk refuses the record it is
   * kept in memory, answered from there, and written first by the next append that lands.
   */
  private append(line: LedgerLine, whenRefused: 'throw' | 'keep' = 'keep'): void {
    this.fd ??= openSync(this.path, 'a');
    const before = this.unwritten;
    this.unwritten += `${JSON.stringify(line)}\n`;
    const refusal = this.writeUnwritten(whenRefused === 'keep');
    if (refusal !== undefined && whenRefused === 'throw') {
      this.unwritten = before;
      throw refusal;
    }
    this.apply(line);
    if (this.lines > this.records.size * 4 + COMPACT_SLACK_LINES) this.compact();
  }

  /** Writes the records the disk refused so far (and any just added); returns the refusal, if any. */
  private writeUnwritten(report = true): unknown {
    if (this.fd === undefined) return undefined;
    try {
      appendWhole(this.fd, this.unwritten);
      this.unwritten = '';
      this.fsync.wrote(this.fd);
      return undefined;
    } catch (error) {
      if (report) this.onWriteError?.(error);
      return error;
    }
  }

  private apply(line: LedgerLine): void {
    this.lines += 1;
    if (line.op === 'accepted') {
      const record: EventRecord = { eventId: line.eventId, state: 'queued', agent: line.agent, instanceKey: line.instanceKey, traceId: line.traceId, acceptedAt: line.at };
      if (line.idempotencyKey !== undefined) {
        record.idempotencyKey = line.idempotencyKey;
        if (line.inputDigest !== undefined) record.inputDigest = line.inputDigest;
        this.byKey.set(line.idempotencyKey, line.eventId);
        this.refusedByKey.delete(line.idempotencyKey);
      }
      this.records.set(line.eventId, record);
      return;
    }
    const record = this.records.get(line.eventId);
    if (!record) return;
    if (line.op === 'refused') {
      this.records.delete(line.eventId);
      if (record.idempotencyKey === undefined) return;
      this.byKey.delete(record.idempotencyKey);
      const { eventId, agent, instanceKey, traceId, acceptedAt, idempotencyKey } = record;
      this.refusedByKey.set(idempotencyKey, { eventId, agent, instanceKey, traceId, acceptedAt, idempotencyKey, refusedAt: line.at });
      return;
    }
    if (line.op === 'running') record.state = 'running';
    else if (line.op === 'done') Object.assign(record, { state: 'done', reply: line.reply, settledAt: line.at });
    else Object.assign(record, { state: 'dead', reason: line.reason, settledAt: line.at, ...(line.code !== undefined ? { code: line.code } : {}), ...(line.error !== undefined ? { error: line.error } : {}) });
    const settled = settledOutcome(record);
    const waiting = this.waiters.get(line.eventId);
    if (settled && waiting) {
      this.waiters.delete(line.eventId);
      for (const resolve of waiting) resolve(settled);
    }
  }

  /** Drops records settled more than the window ago and rewrites the file with the rest. */
  private compact(): void {
    const horizon = this.now() - IDEMPOTENCY_WINDOW_MS;
    for (const [eventId, record] of this.records) {
      if (record.settledAt === undefined || Date.parse(record.settledAt) >= horizon) continue;
      this.records.delete(eventId);
      if (record.idempotencyKey !== undefined) this.byKey.delete(record.idempotencyKey);
    }
    for (const [key, refused] of this.refusedByKey) if (Date.parse(refused.refusedAt) < horizon) this.refusedByKey.delete(key);
    let text = '';
    for (const record of this.records.values()) for (const line of linesOf(record)) text += `${JSON.stringify(line)}\n`;
    for (const refused of this.refusedByKey.values()) for (const line of refusedLines(refused)) text += `${JSON.stringify(line)}\n`;
    this.close();
    const tmp = `${this.path}.tmp-${process.pid}`;
    writeFileSync(tmp, text);
    this.fsync.syncPath(tmp);
    renameSync(tmp, this.path);
    this.lines = this.records.size + this.refusedByKey.size * 2;
  }
}

function refusedLines(refused: RefusedEvent): LedgerLine[] {
  const { eventId, agent, instanceKey, traceId, acceptedAt, idempotencyKey, refusedAt } = refused;
  return [
    { op: 'accepted', eventId, agent, instanceKey, traceId, at: acceptedAt, idempotencyKey },
    { op: 'refused', eventId, at: refusedAt },
  ];
}

function linesOf(record: EventRecord): LedgerLine[] {
  const accepted: LedgerLine = { op: 'accepted', eventId: record.eventId, agent: record.agent, instanceKey: record.instanceKey, traceId: record.traceId, at: record.acceptedAt };
  if (record.idempotencyKey !== undefined) accepted.idempotencyKey = record.idempotencyKey;
  if (record.inputDigest !== undefined) accepted.inputDigest = record.inputDigest;
  const out: LedgerLine[] = [accepted];
  if (record.state === 'running') out.push({ op: 'running', eventId: record.eventId });
  if (record.state === 'done' && record.reply) out.push({ op: 'done', eventId: record.eventId, reply: record.reply, at: record.settledAt ?? record.acceptedAt });
  if (record.state === 'dead') {
    const { code, error } = record;
    out.push({ op: 'dead', eventId: record.eventId, reason: record.reason ?? '', at: record.settledAt ?? record.acceptedAt, ...(code !== undefined ? { code } : {}), ...(error !== undefined ? { error } : {}) });
  }
  return out;
}

function settledOutcome(record: EventRecord): ReplyOutcome | undefined {
  if (record.state === 'done' && record.reply) return record.reply;
  if (record.state === 'dead') {
    const reason = record.reason ?? '';
    if (record.error) return failureOutcome(givenUpError(record.eventId, reason, record.error), record.traceId);
    const code = record.code !== undefined && isRuntimeErrorCode(record.code) ? record.code : 'AGENT_CRASHED';
    return failureOutcome(runtimeError(code, `event ${record.eventId} was given up: ${reason}`), record.traceId);
  }
  return undefined;
}

/** What the caller of a given-up event is told: the error it was given up with, saying so. */
export function givenUpError(eventId: string, reason: string, error: ErrorShape): ErrorShape {
  return { ...error, message: `event ${eventId} was given up: ${reason}` };
}
