/**
 * One onion-middleware engine for the `turn`, `step` and `toolCall` chains (SPEC.md §4.2, Hono's
 * compose): entries run outermost first, each gets a view of the shared context whose `next()`
 * runs the rest of the chain, and the core — passed per call, so each call carries its own state —
 * runs when the chain is exhausted.
 */

export interface ChainEntry<C, R> {
  /** Extension that registered the middleware (named in the double-`next()` error). */
  owner: string;
  fn: (ctx: C) => Promise<R>;
}

export type ComposedChain<C, R> = (ctx: C, core: (ctx: C) => Promise<R>) => Promise<R>;

export function compose<C extends { next(): Promise<R> }, R>(chain: string, entries: readonly ChainEntry<C, R>[]): ComposedChain<C, R> {
  return (ctx, core) => {
    const dispatch = (index: number): Promise<R> => {
      const entry = entries[index];
      if (entry === undefined) return core(ctx);
      let called = false;
      const next = (): Promise<R> => {
        // SPEC.md §4.2: next() exactly once; retries return a result or throw instead.
        if (called) {
          return Promise.reject(new Error(`Extension '${entry.owner}' called next() more than once in its ${chain} middleware`));
        }
        called = true;
        return dispatch(index + 1);
      };
      // A per-middleware view: reads and writes go to the shared context (so `ctx.args = …` or
      // `ctx.toolCatalog = …` reach inner middleware and the core); only `next` is its own.
      const view = new Proxy(ctx, { get: (target, key) => (key === 'next' ? next : Reflect.get(target, key)) });
      try {
        return entry.fn(view);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}
