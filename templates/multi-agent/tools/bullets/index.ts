/**
 * The bullets tool. goondan loads this module and calls `handlers[<export name>]` for each export
 * declared under Tool/bullets in goondan.yaml (the model sees `bullets__format`). A handler gets
 * `(ctx, input)`: `input` has already been checked against the export's `parameters`;
 * `ctx.workdir` is this conversation's own workspace directory. Return any JSON value; throw an
 * Error to report a failure (the model sees its message).
 */
export interface ToolContext {
  workdir: string;
}

export const handlers = {
  format: async (_ctx: ToolContext, input: { text?: unknown }) => {
    const items = String(input.text ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (items.length === 0) throw new Error('text holds no items: pass one item per line');
    return { text: items.map((item) => `- ${item}`).join('\n'), items: items.length };
  },
};
