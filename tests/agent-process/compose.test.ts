import { describe, expect, test } from 'bun:test';
import { compose, type ChainEntry } from '../../agent-process/engine/compose.ts';
import { PipelineRegistry } from '../../agent-process/engine/pipeline-registry.ts';
import type { ToolCallMiddlewareContext } from '../../shared/types/extensions.ts';
import type { ToolResult } from '../../shared/types/tools.ts';

interface Ctx {
  log: string[];
  value: number;
  next(): Promise<string>;
}

const entry = (owner: string, fn: (ctx: Ctx) => Promise<string>): ChainEntry<Ctx, string> => ({ owner, fn });
const ctx = (): Ctx => ({ log: [], value: 0, next: () => Promise.reject(new Error('core ctx next')) });

describe('compose: onion order', () => {
  test('outer pre runs first, outer post runs last, core in the middle', async () => {
    const c = ctx();
    const run = compose('turn', [
      entry('a', async (x) => (x.log.push('a>'), await x.next().finally(() => x.log.push('<a')))),
      entry('b', async (x) => (x.log.push('b>'), await x.next().finally(() => x.log.push('<b')))),
    ]);
    expect(await run(c, async (x) => (x.log.push('core'), 'done'))).toBe('done');
    expect(c.log).toEqual(['a>', 'b>', 'core', '<b', '<a']);
  });

  test('a middleware may short-circuit without calling next()', async () => {
    const c = ctx();
    const run = compose('step', [entry('a', async () => 'short')]);
    expect(await run(c, async (x) => (x.log.push('core'), 'core'))).toBe('short');
    expect(c.log).toEqual([]);
  });

  test('writes to the context (reassignment) reach inner middleware and the core', async () => {
    const c = ctx();
    const run = compose('toolCall', [entry('a', async (x) => ((x.value = 41), x.next())), entry('b', async (x) => ((x.value += 1), x.next()))]);
    expect(await run(c, async (x) => String(x.value))).toBe('42');
    expect(c.value).toBe(42);
  });

  test('with no middleware the core runs alone', async () => {
    expect(await compose<Ctx, string>('turn', [])(ctx(), async () => 'core')).toBe('core');
  });

  test('each call passes its own core: concurrent calls never see each other\'s state', async () => {
    const run = compose('step', [entry('slow', async (x) => (await Bun.sleep(x.value), x.next()))]);
    const first = { ...ctx(), value: 20 };
    const second = { ...ctx(), value: 1 };
    const results = await Promise.all([run(first, async () => 'first core'), run(second, async () => 'second core')]);
    expect(results).toEqual(['first core', 'second core']);
  });
});

describe('compose: next() at most once', () => {
  test('a second next() rejects with an Error naming the extension and the chain', async () => {
    const run = compose('step', [entry('greedy-ext', async (x) => (await x.next(), x.next()))]);
    await expect(run(ctx(), async () => 'core')).rejects.toThrow("Extension 'greedy-ext' called next() more than once in its step middleware");
  });

  test('the core runs exactly once even when the second call is attempted', async () => {
    let coreRuns = 0;
    const run = compose('turn', [entry('x', async (c) => (await c.next(), c.next().catch(() => 'caught')))]);
    expect(await run(ctx(), async () => (coreRuns++, 'core'))).toBe('caught');
    expect(coreRuns).toBe(1);
  });

  test('a middleware that throws synchronously becomes a rejection', async () => {
    const run = compose<Ctx, string>('turn', [{ owner: 'sync', fn: () => { throw new Error('sync boom'); } }]);
    await expect(run(ctx(), async () => 'core')).rejects.toThrow('sync boom');
  });
});

describe('PipelineRegistry: priority then registration order', () => {
  const core = async (c: ToolCallMiddlewareContext): Promise<ToolResult> => ({ toolCallId: c.toolCallId, toolName: c.toolName, status: 'ok', output: null });

  test('lower priority is outer; ties keep registration order', async () => {
    const registry = new PipelineRegistry();
    const order: string[] = [];
    const mw = (name: string) => async (c: ToolCallMiddlewareContext) => (order.push(name), c.next());
    registry.register('e1', 'toolCall', mw('p0-first'));
    registry.register('e2', 'toolCall', mw('p10'), 10);
    registry.register('e3', 'toolCall', mw('p-5'), -5);
    registry.register('e4', 'toolCall', mw('p0-second'));
    const ctx: ToolCallMiddlewareContext = {
      agentName: 'a', instanceKey: 'k', turnId: 't', traceId: 'x', stepIndex: 0, toolName: 'x__y', toolCallId: 'c1', args: {}, metadata: {},
      display: {}, toolVerdict: () => Promise.resolve(undefined),
      next: () => Promise.reject(new Error('n/a')),
    };
    await registry.run('toolCall', ctx, core);
    expect(order).toEqual(['p-5', 'p0-first', 'p0-second', 'p10']);
    expect(registry.count('toolCall')).toBe(4);
  });

  test('registering an unknown chain or a non-function is rejected with the extension named', () => {
    const registry = new PipelineRegistry();
    // @ts-expect-error — an unknown chain name is exactly what is being tested
    expect(() => registry.register('bad-ext', 'mutate', async () => ({}))).toThrow("Extension 'bad-ext' registered an unknown pipeline 'mutate'");
    // @ts-expect-error — a non-function middleware is exactly what is being tested
    expect(() => registry.register('bad-ext', 'step', 42)).toThrow("Extension 'bad-ext' registered a step middleware that is not a function");
  });
});
