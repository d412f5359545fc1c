/** The agent entry bundled into one file starts like the sources: a bare process that says runtime.ready. */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_SOURCE_ENTRY, agentEntry, buildAgentBundle, freshAgentBundle, prepareAgentEntry } from '../../orchestrator/process/agent-bundle.ts';

setDefaultTimeout(120_000);

describe('the bundled agent entry', () => {
  test('is built for the current sources, found as fresh afterwards, and starts as a bare agent (runtime.ready over IPC)', async () => {
    const path = await buildAgentBundle();
    expect(freshAgentBundle()).toBe(path);
    expect(await firstMessage(path)).toMatchObject({ type: 'event', payload: { type: 'runtime.ready' } });
  });

  test('carries its bytecode beside it (functions are not compiled on their first call); a bytecode file that does not match is ignored', async () => {
    const path = await buildAgentBundle();
    expect(readFileSync(path, 'utf8').split('\n', 1)[0]).toContain('@bytecode');
    expect(statSync(`${path}.jsc`).size).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'goondan-agent-bytecode-'));
    try {
      const copy = join(dir, 'agent.js');
      copyFileSync(path, copy);
      writeFileSync(`${copy}.jsc`, 'not bytecode');
      expect(await firstMessage(copy)).toMatchObject({ type: 'event', payload: { type: 'runtime.ready' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('GOONDAN_AGENT_BUNDLE=0 keeps agents on the sources; a build removed under the daemon falls back to them', async () => {
    const log = { info: () => {}, warn: () => {} };
    await prepareAgentEntry({ GOONDAN_AGENT_BUNDLE: '0' }, log);
    expect(agentEntry()).toBe(AGENT_SOURCE_ENTRY);
    await prepareAgentEntry({}, log);
    const built = agentEntry();
    expect(built).not.toBe(AGENT_SOURCE_ENTRY);
    rmSync(built);
    expect(agentEntry()).toBe(AGENT_SOURCE_ENTRY);
    // The next daemon builds it again.
    await prepareAgentEntry({}, log);
    expect(agentEntry()).toBe(built);
  });
});

/** The first IPC message of a bare agent process started from `entry`. */
function firstMessage(entry: string): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const child = Bun.spawn([process.execPath, entry], {
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit'],
      ipc: (message) => {
        child.kill();
        resolve(message);
      },
    });
    void child.exited.then((code) => reject(new Error(`the bundled agent exited (${code}) before its first IPC message`)));
  });
}
