import { describe, expect, test } from 'bun:test';
import { handlers } from '../../bundles/base/tools/wait/index.ts';
import { within } from '../helpers/wait-for.ts';
import { asObject, callTool, toolError, toolContexts } from './tool-context.ts';

const setup = toolContexts();

describe('wait__seconds', () => {
  test('waits about the requested time and reports it', async () => {
    const t = setup();
    const started = performance.now();
    const out = asObject(await callTool(handlers, 'seconds', t.ctx, { seconds: 0.2 }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(out.seconds).toBe(0.2);
    expect(Number(out.waitedMs)).toBeGreaterThanOrEqual(190);
  });

  test('0 returns at once', async () => {
    expect(asObject(await callTool(handlers, 'seconds', setup().ctx, { seconds: 0 })).seconds).toBe(0);
  });

  test('an aborted signal ends the wait early with E_TOOL_ABORTED', async () => {
    const t = setup();
    const call = callTool(handlers, 'seconds', t.ctx, { seconds: 300 });
    // Aborted during the wait (or, on a starved machine, even before it began: the same error).
    setTimeout(() => t.controller.abort(), 100);
    // A wait that ignored the signal would last 300 s.
    expect((await toolError(within(call, 'the aborted 300 s wait to end'))).code).toBe('E_TOOL_ABORTED');
  });

  test.each([{ seconds: -1 }, { seconds: 301 }, { seconds: '5' }, {}, { seconds: 1, ms: 5 }])('%j → E_TOOL_INVALID_ARGS', async (input) => {
    expect((await toolError(callTool(handlers, 'seconds', setup().ctx, input))).code).toBe('E_TOOL_INVALID_ARGS');
  });
});
