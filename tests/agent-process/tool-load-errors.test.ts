/**
 * E_TOOL_LOAD says which of two things went wrong (docs/errors/tool.md): the entry file is not
 * there (fix spec.entry), or the module exists and threw while Bun imported it (run it to see why).
 */
import { describe, expect, test } from 'bun:test';
import { EngineError } from '../../agent-process/engine/engine-error.ts';
import type { GoondanError } from '../../shared/errors/index.ts';
import { fixtureTool, makePlan, startEngine } from './helpers/engine-fixture.ts';

async function loadError(file: string): Promise<GoondanError> {
  const tool = fixtureTool('broken', file, [{ name: 'run', description: 'run', parameters: { type: 'object', properties: {} } }]);
  const error = await startEngine(makePlan({ tools: [tool] })).catch((e: unknown) => e);
  if (!EngineError.isInstance(error)) throw new Error(`expected an EngineError, got ${String(error)}`);
  expect<string>(error.code).toBe('E_TOOL_LOAD');
  expect(error.details?.file).toBe(tool.entryPath);
  return error;
}

describe('E_TOOL_LOAD', () => {
  test('a module that throws at import: run it with bun to see the error, fix it, restart', async () => {
    const error = await loadError('import-throws.ts');
    expect(error.message).toContain('threw while importing: module failed to evaluate');
    expect(error.suggestion).toContain('Run `bun ');
    expect(error.suggestion).toContain('import-throws.ts` to see the error');
    expect(error.suggestion).toContain('then `goondan restart`');
    expect(error.suggestion).not.toContain('points to a module Bun can import');
  });

  test('an entry file that does not exist: fix spec.entry', async () => {
    const error = await loadError('no-such-module.ts');
    expect(error.message).toContain('no-such-module.ts does not exist');
    expect(error.suggestion).toContain('spec.entry of Tool/broken');
  });
});
