/**
 * The end of a turn settles the durability policy off the event loop (issue 12): every file written
 * since the last barrier is synced — all of them concurrently — before the reply leaves; nothing
 * is synced twice, `never` syncs nothing, and a file closed while its sync is in flight is synced
 * before the close.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-fsync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function written(policy: FsyncPolicy, name: string): number {
  const fd = openSync(join(dir, name), 'a');
  writeSync(fd, 'record\n');
  policy.wrote(fd);
  return fd;
}

describe('FsyncPolicy.settle', () => {
  test('syncs every file written since the last barrier, once', async () => {
    const policy = new FsyncPolicy('batch');
    const fds = ['a', 'b', 'c'].map((name) => written(policy, name));
    await policy.settle();
    expect(policy.syncs).toBe(3);
    await policy.settle();
    expect(policy.syncs).toBe(3);
    for (const fd of fds) closeSync(fd);
  });

  test('a single written file is synced too', async () => {
    const policy = new FsyncPolicy('batch');
    const fd = written(policy, 'single');
    await policy.settle();
    expect(policy.syncs).toBe(1);
    closeSync(fd);
  });

  test('`never` syncs nothing', async () => {
    const policy = new FsyncPolicy('never');
    const fd = written(policy, 'never');
    await policy.settle();
    expect(policy.syncs).toBe(0);
    closeSync(fd);
  });

  test('a file closed while settle() syncs it off the loop is synced before the close', async () => {
    const policy = new FsyncPolicy('batch');
    const first = written(policy, 'closing-1');
    const second = written(policy, 'closing-2');
    const settling = policy.settle();
    // Still in flight: closing() must not assume the pending sync covers a descriptor about to be reused.
    policy.closing(first);
    expect(policy.syncs).toBeGreaterThanOrEqual(1);
    closeSync(first);
    await settling;
    expect(policy.syncs).toBeGreaterThanOrEqual(2);
    closeSync(second);
  });
});

describe('FsyncPolicy batch timer', () => {
  test('syncs what was written within the batch interval, without a barrier', async () => {
    const policy = new FsyncPolicy('batch');
    const fd = written(policy, 'timer');
    const deadline = Date.now() + 10_000;
    while (policy.syncs === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(policy.syncs).toBe(1);
    closeSync(fd);
  });
});
