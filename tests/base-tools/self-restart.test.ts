import { describe, expect, test } from 'bun:test';
import { handlers } from '../../bundles/base/tools/self-restart/index.ts';
import { callTool, toolError, toolContexts } from './tool-context.ts';

const setup = toolContexts();

describe('self-restart__request only signals the request (the agent shell acts on it)', () => {
  test('returns restartRequested with the reason and logs it', async () => {
    const t = setup();
    expect(await callTool(handlers, 'request', t.ctx, { reason: 'edited my prompt' })).toEqual({ restartRequested: true, restartReason: 'edited my prompt' });
    expect(t.readLog()).toContain('self-restart requested');
  });

  test('a missing or blank reason gets a default', async () => {
    const t = setup();
    expect(await callTool(handlers, 'request', t.ctx, {})).toEqual({ restartRequested: true, restartReason: 'requested by the agent' });
    expect(await callTool(handlers, 'request', t.ctx, { reason: '  ' })).toEqual({ restartRequested: true, restartReason: 'requested by the agent' });
  });

  test('bad arguments are E_TOOL_INVALID_ARGS', async () => {
    expect((await toolError(callTool(handlers, 'request', setup().ctx, { reason: 5 }))).code).toBe('E_TOOL_INVALID_ARGS');
    expect((await toolError(callTool(handlers, 'request', setup().ctx, { now: true }))).code).toBe('E_TOOL_INVALID_ARGS');
  });
});
