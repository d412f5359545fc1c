/**
 * Warm spares rehearse in a scratch directory that they remove themselves — unless they are killed
 * mid-rehearsal (the pool stops idle spares with SIGKILL). On /dev/shm that would be memory lost
 * until reboot: every rehearsal first removes the scratch directories of processes that are gone.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAbandonedScratch } from '../../agent-process/shell/agent-rehearsal.ts';

const root = mkdtempSync(join(tmpdir(), 'goondan-scratch-root-'));
const sleeper = Bun.spawn([process.execPath, '-e', 'setTimeout(() => {}, 60_000)'], { stdio: ['ignore', 'ignore', 'ignore'] });
afterAll(() => {
  sleeper.kill();
  rmSync(root, { recursive: true, force: true });
});

function scratch(name: string): void {
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, 'base.jsonl'), '{}\n');
}

describe('removeAbandonedScratch', () => {
  test('removes what dead processes left, keeps what live ones use, and leaves other names alone', async () => {
    const gone = Bun.spawn([process.execPath, '-e', '0']);
    await gone.exited;
    scratch(`goondan-rehearsal-${gone.pid}-aB3dE9`);
    scratch(`goondan-rehearsal-${process.pid}-mine01`);
    scratch(`goondan-rehearsal-${sleeper.pid}-live01`);
    // The older form without a pid: removed only once it is old.
    scratch('goondan-rehearsal-oldOne');
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, 'goondan-rehearsal-oldOne'), longAgo, longAgo);
    scratch('goondan-rehearsal-fresh1');
    scratch('someone-else');
    removeAbandonedScratch(root);
    expect(readdirSync(root).sort()).toEqual([`goondan-rehearsal-${process.pid}-mine01`, `goondan-rehearsal-${sleeper.pid}-live01`, 'goondan-rehearsal-fresh1', 'someone-else'].sort());
  });
});
