/**
 * The project-info tool. goondan loads this module and calls `handlers[<export name>]` for each
 * export declared under Tool/project-info in goondan.yaml (the model sees `project-info__summary`).
 * A handler gets `(ctx, input)`: `ctx.workdir` is this conversation's own workspace directory,
 * where the file-system and bash tools work too. Return any JSON value; throw an Error to report
 * a failure (the model sees its message).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface ToolContext {
  workdir: string;
}

const SKIPPED = new Set(['.git', 'node_modules']);

function walk(dir: string, totals: { files: number; bytes: number }): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, totals);
    else if (entry.isFile()) {
      totals.files += 1;
      totals.bytes += statSync(path).size;
    }
  }
}

export const handlers = {
  summary: async (ctx: ToolContext) => {
    const totals = { files: 0, bytes: 0 };
    walk(ctx.workdir, totals);
    return totals;
  },
};
