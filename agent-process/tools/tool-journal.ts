/**
 * The tool-call journal (issue 10): `tool.call.started {toolCallId, name, args}` is appended — and
 * synced under the durability policy — before a handler runs, `tool.call.finished {toolCallId,
 * result}` after. A turn resumed after a crash reads it back: a finished call is never run again
 * (its result is reused), a started-but-unfinished one is run again only when its export is
 * idempotent. Calls are keyed by the assistant message that holds them plus the call id (providers
 * reuse call ids across turns). The journal covers the unfolded turn only: it is cleared after the
 * turn is folded into base.jsonl, where the results then live.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppendedLines } from '../../shared/durability/appended-lines.ts';
import type { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { TornTailReport } from '../../shared/durability/line-boundary.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolResult } from '../../shared/types/tools.ts';
import { agentValidator } from '../validation/agent-validator.ts';

export type JournalRecord =
  | { type: 'tool.call.started'; messageId: string; toolCallId: string; name: string; args: JsonObject; at: string }
  | { type: 'tool.call.finished'; messageId: string; toolCallId: string; result: ToolResult; at: string };

/** What the journal knows about one call. */
export type JournalState = { state: 'unknown' } | { state: 'started' } | { state: 'finished'; result: ToolResult };

const isRecord = agentValidator<JournalRecord>({
  oneOf: [
    {
      type: 'object',
      required: ['type', 'messageId', 'toolCallId', 'name', 'args', 'at'],
      properties: { type: { const: 'tool.call.started' }, messageId: { type: 'string' }, toolCallId: { type: 'string' }, name: { type: 'string' }, args: { type: 'object' }, at: { type: 'string' } },
    },
    {
      type: 'object',
      required: ['type', 'messageId', 'toolCallId', 'result', 'at'],
      properties: {
        type: { const: 'tool.call.finished' },
        messageId: { type: 'string' },
        toolCallId: { type: 'string' },
        at: { type: 'string' },
        result: {
          type: 'object',
          required: ['toolCallId', 'toolName', 'status'],
          properties: { toolCallId: { type: 'string' }, toolName: { type: 'string' }, status: { enum: ['ok', 'error', 'pending'] } },
        },
      },
    },
  ],
});

export class ToolJournal {
  private readonly calls = new Map<string, JournalState>();
  private readonly file: AppendedLines;

  constructor(
    path: string,
    private readonly fsync: FsyncPolicy,
    onBadLine: (line: number) => void = () => {},
    /** Its torn last line was cut before the first append (see line-boundary.ts). */
    onTornTail?: TornTailReport,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.file = new AppendedLines(path, fsync, onTornTail);
    if (!existsSync(path)) return;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((raw, index) => {
        if (raw.trim() === '') return;
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          onBadLine(index + 1); // a torn last line is what a crash mid-write leaves
          return;
        }
        if (!isRecord(value)) return onBadLine(index + 1);
        this.calls.set(keyOf(value.messageId, value.toolCallId), value.type === 'tool.call.started' ? { state: 'started' } : { state: 'finished', result: value.result });
      });
  }

  lookup(messageId: string, toolCallId: string): JournalState {
    return this.calls.get(keyOf(messageId, toolCallId)) ?? { state: 'unknown' };
  }

  /**
   * On disk (per the policy's barrier) before the handler may act on the world. An idempotent
   * tool's call needs no barrier: lost or not, the record leads to the same thing after a crash
   * (the call runs again), so it waits for no disk round.
   */
  started(messageId: string, toolCallId: string, name: string, args: JsonObject, idempotent: boolean): void {
    this.write({ type: 'tool.call.started', messageId, toolCallId, name, args, at: new Date().toISOString() });
    this.calls.set(keyOf(messageId, toolCallId), { state: 'started' });
    if (!idempotent) this.fsync.barrier();
  }

  finished(messageId: string, toolCallId: string, result: ToolResult): void {
    this.write({ type: 'tool.call.finished', messageId, toolCallId, result, at: new Date().toISOString() });
    this.calls.set(keyOf(messageId, toolCallId), { state: 'finished', result });
  }

  /** After the turn's results reached base.jsonl (or before a new turn starts). */
  clear(): void {
    if (this.calls.size === 0) return;
    this.calls.clear();
    this.file.empty();
  }

  close(): void {
    this.file.close();
  }

  private write(record: JournalRecord): void {
    this.file.append([record]);
  }
}

function keyOf(messageId: string, toolCallId: string): string {
  return `${messageId}\u0000${toolCallId}`;
}
