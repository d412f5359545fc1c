/**
 * The files behind a conversation (SPEC.md §3.1): `base.jsonl` (one Message per line) and
 * `events.jsonl` (the running turn's MessageEvents, appended as they happen so a crash loses
 * nothing that was emitted). Folding appends or atomically rewrites the base, and only then clears
 * the events.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync, appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import type { FoldPlan } from './conversation-state.ts';
import { isMessage, isMessageEvent } from './message-schema.ts';

export interface StoreWarning {
  code: 'E_MESSAGE_LINE_INVALID';
  message: string;
  file: string;
  line: number;
}

export interface StoredConversation {
  base: Message[];
  events: MessageEvent[];
  warnings: StoreWarning[];
}

export class MessageStore {
  private eventsFd: number | undefined;
  /** base.jsonl opened for deferred delta folds (closed before a full fold renames a new base over it). */
  private baseFd: number | undefined;
  /** A deferred fold wrote the base; the events go once the caller's barrier synced it. */
  private eventsFolded = false;
  /** Events appended after a deferred fold: they are not in the base, so the file must not be cleared. */
  private appendedAfterFold = false;
  /** clearFoldedEventsSoon() scheduled the clearing for after the reply left. */
  private clearSoon: ReturnType<typeof setImmediate> | undefined;

  constructor(
    private readonly basePath: string,
    private readonly eventsPath: string,
    private readonly fsync: FsyncPolicy = new FsyncPolicy('never'),
  ) {
    mkdirSync(dirname(basePath), { recursive: true });
    mkdirSync(dirname(eventsPath), { recursive: true });
  }

  load(): StoredConversation {
    const warnings: StoreWarning[] = [];
    const base = readJsonLines(this.basePath, isMessage, warnings);
    const events = readJsonLines(this.eventsPath, isMessageEvent, warnings);
    return { base, events, warnings };
  }

  /** Written before the engine moves on (ARCHITECTURE §3), synced per the durability policy. */
  appendEvent(event: MessageEvent): void {
    if (this.eventsFolded) this.appendedAfterFold = true;
    this.eventsFd ??= openSync(this.eventsPath, 'a');
    writeSync(this.eventsFd, `${JSON.stringify(event)}\n`);
    this.fsync.wrote(this.eventsFd);
  }

  /**
   * Writes the base per plan, then clears the events (never the other way round, SPEC.md §3.1).
   * `deferClear` (the end of a turn): a delta is only appended to the base, to be synced together
   * with the turn's other files by the caller's barrier (one fsync round, not two in a row), and the
   * events are cleared by clearFoldedEvents() after that barrier. Until then the events file holds
   * the turn as well; a replay over the extended base skips the repeated appends. Its unsynced
   * writes need no fsync of their own: the base holds all of them.
   */
  fold(plan: FoldPlan, options: { deferClear?: boolean } = {}): void {
    if (plan.mode === 'none') return;
    if (plan.mode === 'delta') {
      if (plan.appended.length > 0 && options.deferClear) {
        this.baseFd ??= openSync(this.basePath, 'a');
        writeSync(this.baseFd, toJsonLines(plan.appended));
        this.fsync.wrote(this.baseFd);
        if (this.eventsFd !== undefined) this.fsync.superseded(this.eventsFd);
        this.eventsFolded = true;
        return;
      }
      if (plan.appended.length > 0) {
        appendFileSync(this.basePath, toJsonLines(plan.appended));
        this.fsync.syncPath(this.basePath);
      }
    } else {
      // A new base is renamed over the old one: appends must not go on into the replaced file.
      this.closeBase();
      const tmp = `${this.basePath}.tmp-${process.pid}`;
      writeFileSync(tmp, toJsonLines(plan.messages));
      this.fsync.syncPath(tmp);
      renameSync(tmp, this.basePath);
    }
    // Everything is in the base now, also what a deferred fold left.
    this.eventsFolded = false;
    this.appendedAfterFold = false;
    this.clearEvents();
  }

  /** After the barrier that synced a deferred fold's base: its events are folded for good. */
  clearFoldedEvents(): void {
    if (this.clearSoon) clearImmediate(this.clearSoon);
    this.clearSoon = undefined;
    if (!this.eventsFolded) return;
    this.eventsFolded = false;
    // Newer events share the file: it stays whole, and the replay skips the folded ones.
    if (this.appendedAfterFold) this.appendedAfterFold = false;
    else this.clearEvents();
  }

  /**
   * clearFoldedEvents() once the current callbacks are done: the truncation (which waits for a
   * running fsync of the file on ext4) comes after the reply that follows the barrier is sent.
   */
  clearFoldedEventsSoon(): void {
    if (!this.eventsFolded || this.clearSoon) return;
    this.clearSoon = setImmediate(() => this.clearFoldedEvents());
  }

  clearEvents(): void {
    if (this.eventsFd !== undefined) ftruncateSync(this.eventsFd, 0);
    else if (existsSync(this.eventsPath)) writeFileSync(this.eventsPath, '');
  }

  close(): void {
    // The base is synced (closing) before the events it holds are cleared.
    this.closeBase();
    this.clearFoldedEvents();
    if (this.eventsFd !== undefined) {
      this.fsync.closing(this.eventsFd);
      closeSync(this.eventsFd);
    }
    this.eventsFd = undefined;
  }

  private closeBase(): void {
    if (this.baseFd === undefined) return;
    this.fsync.closing(this.baseFd);
    closeSync(this.baseFd);
    this.baseFd = undefined;
  }
}

function toJsonLines(messages: readonly Message[]): string {
  let out = '';
  for (const message of messages) out += `${JSON.stringify(message)}\n`;
  return out;
}

function readJsonLines<T>(file: string, accept: (value: unknown) => value is T, warnings: StoreWarning[]): T[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: T[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A torn last line is what a crash mid-write leaves behind; anything else is damage.
      warnings.push({ code: 'E_MESSAGE_LINE_INVALID', message: `line ${index + 1} of ${file} is not JSON; skipped`, file, line: index + 1 });
      return;
    }
    if (accept(value)) out.push(value);
    else warnings.push({ code: 'E_MESSAGE_LINE_INVALID', message: `line ${index + 1} of ${file} is not a valid record; skipped`, file, line: index + 1 });
  });
  return out;
}
