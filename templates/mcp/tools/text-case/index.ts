/**
 * The text-case tool. goondan loads this module and calls `handlers[<export name>]` for each
 * export declared under Tool/text-case in goondan.yaml (the model sees `text-case__upper`). A
 * handler gets `(ctx, input)`: `input` has already been checked against the export's
 * `parameters`; `ctx.workdir` is this conversation's own workspace directory. Return any JSON
 * value; throw an Error to report a failure (the model sees its message).
 */
export interface ToolContext {
  workdir: string;
}

export const handlers = {
  upper: async (_ctx: ToolContext, input: { text?: unknown }) => {
    const text = typeof input.text === 'string' ? input.text : '';
    return { text: text.toUpperCase() };
  },
};
