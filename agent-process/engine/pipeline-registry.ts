/**
 * The registered middleware of one engine, per chain, kept in execution order: ascending
 * `priority` (lower = outer), ties in registration order (SPEC.md §4.2). Each run passes its own
 * core, so nothing about one call is stored here.
 */
import type {
  StepMiddlewareContext,
  ToolCallMiddlewareContext,
  TurnMiddlewareContext,
} from '../../shared/types/extensions.ts';
import type { ToolResult } from '../../shared/types/tools.ts';
import type { StepResult, TurnResult } from '../../shared/types/turns.ts';
import { type ChainEntry, type ComposedChain, compose } from './compose.ts';

export type ChainName = 'turn' | 'step' | 'toolCall';

interface Ordered<C, R> extends ChainEntry<C, R> {
  priority: number;
}

class Chain<C extends { next(): Promise<R> }, R> {
  private readonly entries: Ordered<C, R>[] = [];
  private composed: ComposedChain<C, R> | undefined;

  constructor(private readonly name: ChainName) {}

  add(owner: string, fn: (ctx: C) => Promise<R>, priority: number): void {
    // Insert after every entry with priority <= this one: stable for ties.
    let at = this.entries.length;
    while (at > 0 && (this.entries[at - 1]?.priority ?? 0) > priority) at--;
    this.entries.splice(at, 0, { owner, fn, priority });
    this.composed = undefined;
  }

  run(ctx: C, core: (ctx: C) => Promise<R>): Promise<R> {
    this.composed ??= compose(this.name, [...this.entries]);
    return this.composed(ctx, core);
  }

  get size(): number {
    return this.entries.length;
  }
}

/** Context and result type of each chain. */
export interface ChainTypes {
  turn: { ctx: TurnMiddlewareContext; result: TurnResult };
  step: { ctx: StepMiddlewareContext; result: StepResult };
  toolCall: { ctx: ToolCallMiddlewareContext; result: ToolResult };
}
export type MiddlewareOf<K extends ChainName> = (ctx: ChainTypes[K]['ctx']) => Promise<ChainTypes[K]['result']>;
type Chains = { [K in ChainName]: Chain<ChainTypes[K]['ctx'], ChainTypes[K]['result']> };

export class PipelineRegistry {
  private readonly chains: Chains = { turn: new Chain('turn'), step: new Chain('step'), toolCall: new Chain('toolCall') };

  register<K extends ChainName>(owner: string, type: K, fn: MiddlewareOf<K>, priority = 0): void {
    if (!Object.hasOwn(this.chains, type)) {
      throw new TypeError(`Extension '${owner}' registered an unknown pipeline '${String(type)}' (only turn, step, toolCall exist)`);
    }
    if (typeof fn !== 'function') throw new TypeError(`Extension '${owner}' registered a ${type} middleware that is not a function`);
    if (!Number.isFinite(priority)) throw new TypeError(`Extension '${owner}' registered a ${type} middleware with a non-numeric priority`);
    this.chains[type].add(owner, fn, priority);
  }

  /** Runs one call through the chain; `core` is this call's own innermost step. */
  run<K extends ChainName>(type: K, ctx: ChainTypes[K]['ctx'], core: MiddlewareOf<K>): Promise<ChainTypes[K]['result']> {
    return this.chains[type].run(ctx, core);
  }

  count(type: ChainName): number {
    return this.chains[type].size;
  }
}
