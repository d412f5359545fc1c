/** The agent entry bundled into one file starts like the sources: a bare process that says runtime.ready. */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { buildAgentBundle, freshAgentBundle } from '../../orchestrator/process/agent-bundle.ts';

setDefaultTimeout(120_000);

describe('the bundled agent entry', () => {
  test('is built for the current sources, found as fresh afterwards, and starts as a bare agent (runtime.ready over IPC)', async () => {
    const path = await buildAgentBundle();
    expect(freshAgentBundle()).toBe(path);
    const first = await new Promise<unknown>((resolve, reject) => {
      const child = Bun.spawn([process.execPath, path], {
        serialization: 'json',
        stdio: ['ignore', 'ignore', 'inherit'],
        ipc: (message) => {
          child.kill();
          resolve(message);
        },
      });
      void child.exited.then((code) => reject(new Error(`the bundled agent exited (${code}) before its first IPC message`)));
    });
    expect(first).toMatchObject({ type: 'event', payload: { type: 'runtime.ready' } });
  });
});
