/**
 * A tool's handlers are loaded once per plan object (issue 12): a primed spare's rehearsal and the
 * instance it becomes share their plans, and the instance's start does not check the module again.
 * Another plan object (a reload) is loaded anew; a module that cannot load fails every engine alike.
 */
import { describe, expect, test } from 'bun:test';
import { loadToolHandlers } from '../../agent-process/tools/tool-loader.ts';
import { ECHO_EXPORTS, echoTool, fixtureTool } from './helpers/engine-fixture.ts';

describe('loadToolHandlers', () => {
  test('the same plan object twice: the same loaded tool; an equal new plan object: loaded again, same handlers', async () => {
    const plan = echoTool();
    const first = await loadToolHandlers(plan);
    expect(await loadToolHandlers(plan)).toBe(first);
    const reloaded = await loadToolHandlers({ ...plan });
    expect(reloaded).not.toBe(first);
    expect(Object.keys(reloaded.handlers)).toEqual(Object.keys(first.handlers));
  });

  test('a module that cannot load is refused each time it is asked for, with the file named', async () => {
    const plan = fixtureTool('missing', 'no-such-tool.ts', ECHO_EXPORTS);
    await expect(loadToolHandlers(plan)).rejects.toThrow('no-such-tool.ts');
    await expect(loadToolHandlers(plan)).rejects.toThrow('no-such-tool.ts');
  });
});
