/**
 * The word-count tool. goondan loads this module and calls `handlers[<export name>]` for each
 * export declared under Tool/word-count in goondan.yaml (the model sees `word-count__count`).
 * A handler gets `(ctx, input)`: `input` has already been checked against the export's
 * `parameters`; `ctx.workdir` is this conversation's own workspace directory. Return any JSON
 * value; throw an Error to report a failure (the model sees its message).
 */
export interface ToolContext {
  workdir: string;
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

export const handlers = {
  count: async (_ctx: ToolContext, input: { text?: unknown }) => {
    const text = typeof input.text === 'string' ? input.text : '';
    return { words: countWords(text), characters: text.length };
  },
};
