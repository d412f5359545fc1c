/**
 * The files behind a conversation (SPEC.md §3.1): `base.jsonl` (one Message per line),
 * `base-edits.jsonl` (replace events folded after the base: in-place replacements, such as a
 * system prompt that changes every turn, are appended there instead of rewriting the whole
 * history) and `events.jsonl` (the running turn's MessageEvents, appended as they happen so a crash
 * loses nothing that was emitted). Folding appends to the base and only then clears the events, or
 * rewrites the base, which takes the edits and the events in at one commit point.
 * The events file holds either events not yet folded or the events of one fold waiting for their
 * base's sync, never both: a replay cannot tell where the one ends and the other begins.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppendedLines, toJsonLines } from '../../shared/durability/appended-lines.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { TornTailReport } from '../../shared/durability/line-boundary.ts';
import { foldedEvents, rewritingBase } from '../../shared/state-paths.ts';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import type { FoldPlan } from './conversation-state.ts';
import { isMessage, isMessageEvent } from './message-schema.ts';

/**
 * Edits always kept before a fold rewrites the base with them. Past it they are kept while they are
 * no larger than the base they edit: a rewrite then writes about as much as was appended since the
 * last one (a turn's share stays flat at any length of history), and a load reads at most about
 * twice the base.
 */
export const EDITS_LIMIT = 64;

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
  /** Appended by deferred folds (closed before a full fold renames a new base over it). */
  private readonly base: AppendedLines;
  private readonly edits: AppendedLines;
  private readonly events: AppendedLines;
  /** Edits after the base, as last loaded or folded, and their bytes; the base's bytes (see EDITS_LIMIT). */
  private editCount = 0;
  private editBytes = 0;
  private baseBytes = 0;
  /** A deferred fold wrote the base; the events go once the caller's barrier synced it. */
  private eventsFolded = false;
  /** clearFoldedEventsSoon() scheduled the clearing for after the reply left. */
  private clearSoon: ReturnType<typeof setImmediate> | undefined;

  constructor(
    basePath: string,
    eventsPath: string,
    private readonly fsync: FsyncPolicy = new FsyncPolicy('never'),
    editsPath = `${dirname(basePath)}/base-edits.jsonl`,
    /** A file's torn last line was cut before the first append to it (see line-boundary.ts). */
    onTornTail?: TornTailReport,
  ) {
    mkdirSync(dirname(basePath), { recursive: true });
    mkdirSync(dirname(eventsPath), { recursive: true });
    this.base = new AppendedLines(basePath, fsync, onTornTail);
    this.edits = new AppendedLines(editsPath, fsync, onTornTail);
    this.events = new AppendedLines(eventsPath, fsync, onTornTail);
  }

  load(): StoredConversation {
    this.finishRewrite();
    const warnings: StoreWarning[] = [];
    const base = readJsonLines(this.base.path, isMessage, warnings);
    const edits = readJsonLines(this.edits.path, isMessageEvent, warnings);
    applyEdits(base, edits, this.edits.path, warnings);
    const events = readJsonLines(this.events.path, isMessageEvent, warnings);
    this.editCount = edits.length;
    this.editBytes = sizeOf(this.edits.path);
    this.baseBytes = sizeOf(this.base.path);
    return { base, events, warnings };
  }

  /** Written before the engine moves on (ARCHITECTURE §3), synced per the durability policy. */
  appendEvent(event: MessageEvent): void {
    // A folded turn's events go before a new one's come: a replay of both would bring back a message
    // the folded turn appended and the new one replaced. The next turn usually starts after the
    // barrier (the clearing is scheduled); an event emitted while it runs syncs the base itself.
    if (this.eventsFolded) {
      if (!this.clearSoon) {
        this.base.sync();
        this.edits.sync();
      }
      this.clearFoldedEvents();
    }
    this.events.append([event]);
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
    // Appending beats a rewrite at any length: the rewrite's new file, sync and rename cost ~0.5 ms
    // a turn even for a short conversation, and its write grows with the history.
    const kept = plan.mode === 'edit' && (this.editCount + plan.replaced.length <= EDITS_LIMIT || this.editBytes <= this.baseBytes);
    if (plan.mode === 'delta' || (plan.mode === 'edit' && kept)) {
      const edits = plan.mode === 'edit' ? plan.replaced : [];
      this.editCount += edits.length;
      if ((plan.appended.length > 0 || edits.length > 0) && options.deferClear) {
        this.baseBytes += this.base.append(plan.appended);
        this.editBytes += this.edits.append(edits);
        this.events.superseded();
        this.eventsFolded = true;
        return;
      }
      this.baseBytes += this.base.appendSynced(plan.appended);
      this.editBytes += this.edits.appendSynced(edits);
      this.eventsFolded = false;
      this.clearEvents();
      return;
    }
    this.rewrite(plan.mode === 'edit' ? plan.messages() : plan.messages);
  }

  /**
   * A new base takes the place of the old one, its edits and the events. The commit point is the
   * events file's rename: load() finishes a rewrite that passed it and drops one that did not, so a
   * crash never leaves events to be replayed over a base that already holds them (an append of a
   * message the fold saw replaced or removed would come back).
   */
  private rewrite(messages: readonly Message[]): void {
    const next = rewritingBase(this.base.path);
    const folded = foldedEvents(this.events.path);
    // A new base is renamed over the old one: appends must not go on into the replaced file.
    this.base.close();
    const text = toJsonLines(messages);
    writeFileSync(next, text);
    this.fsync.syncPath(next);
    // The synced new base holds what the events said: they need no sync of their own.
    this.events.superseded();
    this.events.close();
    if (existsSync(this.events.path)) renameSync(this.events.path, folded);
    else writeFileSync(folded, '');
    // Past the commit point: the rest is what a load does after a crash here.
    this.finishRewrite();
    this.editCount = 0;
    this.editBytes = 0;
    this.baseBytes = Buffer.byteLength(text);
    this.eventsFolded = false;
  }

  /** A rewrite a crash interrupted: finished if it passed its commit point (see rewrite()), else dropped. */
  private finishRewrite(): void {
    const next = rewritingBase(this.base.path);
    const folded = foldedEvents(this.events.path);
    if (!existsSync(folded)) {
      rmSync(next, { force: true });
      return;
    }
    if (existsSync(next)) renameSync(next, this.base.path);
    this.edits.empty();
    rmSync(folded);
  }

  /** After the barrier that synced a deferred fold's base: its events are folded for good. */
  clearFoldedEvents(): void {
    if (this.clearSoon) clearImmediate(this.clearSoon);
    this.clearSoon = undefined;
    if (!this.eventsFolded) return;
    this.eventsFolded = false;
    this.clearEvents();
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
    this.events.empty();
  }

  close(): void {
    // The base and its edits are synced (closing) before the events they hold are cleared.
    this.base.close();
    this.edits.close();
    this.clearFoldedEvents();
    this.events.close();
  }
}

/**
 * The edits over the base, in order. An edit whose target is gone is one a rewrite already took
 * in (a crash between the rename and clearing the edits): skipped.
 */
function applyEdits(base: Message[], edits: readonly MessageEvent[], file: string, warnings: StoreWarning[]): void {
  if (edits.length === 0) return;
  const at = new Map<string, number>();
  base.forEach((message, index) => at.set(message.id, index));
  edits.forEach((edit, index) => {
    if (edit.type !== 'replace') {
      warnings.push({ code: 'E_MESSAGE_LINE_INVALID', message: `line ${index + 1} of ${file} is a ${edit.type} event, not a replacement; skipped`, file, line: index + 1 });
      return;
    }
    const target = at.get(edit.targetId);
    if (target === undefined) return;
    base[target] = edit.message;
    at.delete(edit.targetId);
    at.set(edit.message.id, target);
  });
}

function sizeOf(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
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
