/**
 * The runtime file (`runtime/<workspaceId>.json`) is how the CLI and a second `goondan run` find a
 * daemon: a reader must never find it empty or half written while the daemon writes it, which it
 * would take for "no daemon running" (an e2e test once read it between its creation and its write).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRuntimeFile, writeRuntimeFile } from '../../orchestrator/daemon/runtime-file.ts';
import type { RuntimeFile } from '../../shared/state-paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-runtime-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const content = (apiUrl: string): RuntimeFile => ({ pid: process.pid, apiUrl, workspaceId: 'swarm', startedAt: '', bundlePath: '', swarm: 'swarm' });

describe('the runtime file', () => {
  test('is written whole: each write puts a complete new file in place (rename), never rewrites the one a reader may hold', () => {
    const path = join(dir, 'runtime', 'swarm.json');
    writeRuntimeFile(path, content('http://127.0.0.1:1'));
    const first = statSync(path).ino;
    writeRuntimeFile(path, content('http://127.0.0.1:2'));
    // A new inode: the name moved to a file already complete (rename is atomic), so a reader opens
    // either the old file or the new one, never one truncated and not yet written.
    expect(statSync(path).ino).not.toBe(first);
    expect(readRuntimeFile(path)?.apiUrl).toBe('http://127.0.0.1:2');
    expect(readdirSync(join(dir, 'runtime'))).toEqual(['swarm.json']);
  });
});
