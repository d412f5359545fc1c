/**
 * tool spec §10.2 pending results: `ctx.pending(handle, options)` returns a plain JSON object and
 * remembers it by identity, so the executor can tell "this call is pending" from an ordinary output
 * that happens to look like `{status: "pending"}` (only the returned object itself counts).
 */
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import type { PendingOptions } from '../../shared/types/tools.ts';

export interface PendingMark {
  handle: string;
  output?: JsonValue;
  completion?: Promise<JsonValue>;
}

export class PendingResults {
  private readonly marks = new WeakMap<object, PendingMark>();

  mark(handle: string, options: PendingOptions = {}): JsonObject {
    if (typeof handle !== 'string' || handle === '') throw new TypeError('ctx.pending(handle): handle must be a non-empty string');
    const value: JsonObject = { status: 'pending', handle };
    const mark: PendingMark = { handle };
    if (options.output !== undefined) mark.output = options.output;
    if (options.completion !== undefined) mark.completion = options.completion;
    this.marks.set(value, mark);
    return value;
  }

  /** The mark of a handler's return value, if it is one `mark` made. */
  markOf(value: unknown): PendingMark | undefined {
    return typeof value === 'object' && value !== null ? this.marks.get(value) : undefined;
  }
}
