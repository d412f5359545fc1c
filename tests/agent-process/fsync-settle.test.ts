/**
 * The end of a turn settles the durability policy off the event loop (issue 12): every file written
 * since the last barrier is synced — all of them concurrently — before the reply leaves; nothing
 * is synced twice, `never` syncs nothing, and a file closed while its sync is in flight is synced
 * before the close. A new instance's files are created ahead and their creation synced off the
 * loop while it starts (MessageStore.createFilesAhead): its first turn then syncs data only.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageStore } from '../../agent-process/conversation/message-store.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { makePlan, makeSwarm, removeDir, startEngine, userEvent } from './helpers/engine-fixture.ts';

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

describe('files created ahead', () => {
  test('syncCreated syncs a new file off the loop, once, with nobody waiting; a close meanwhile syncs it first; `never` does nothing', async () => {
    const policy = new FsyncPolicy('batch');
    const fd = openSync(join(dir, 'created'), 'a');
    policy.syncCreated(fd);
    // Nothing was written: no barrier or settle has anything to do for it.
    await policy.settle();
    const deadline = Date.now() + 10_000;
    while (policy.syncs === 0 && Date.now() < deadline) await Bun.sleep(5);
    expect(policy.syncs).toBe(1);
    const closing = openSync(join(dir, 'created-closing'), 'a');
    policy.syncCreated(closing);
    policy.closing(closing);
    expect(policy.syncs).toBe(2);
    closeSync(closing);
    closeSync(fd);
    const never = new FsyncPolicy('never');
    const untouched = openSync(join(dir, 'created-never'), 'a');
    never.syncCreated(untouched);
    await Bun.sleep(20);
    expect(never.syncs).toBe(0);
    closeSync(untouched);
  });

  test('a new conversation has both files created (and their creation synced) before its first turn; an existing one is left as it is', async () => {
    const policy = new FsyncPolicy('batch');
    const base = join(dir, 'new', 'base.jsonl');
    const events = join(dir, 'new', 'events.jsonl');
    const store = new MessageStore(base, events, policy);
    expect(store.load()).toEqual({ base: [], events: [], warnings: [] });
    store.createFilesAhead();
    expect([existsSync(base), existsSync(events)]).toEqual([true, true]);
    const deadline = Date.now() + 10_000;
    while (policy.syncs < 2 && Date.now() < deadline) await Bun.sleep(5);
    expect(policy.syncs).toBe(2);
    store.close();

    const kept = join(dir, 'kept', 'base.jsonl');
    const existing = new MessageStore(kept, join(dir, 'kept', 'events.jsonl'), policy);
    writeFileSync(kept, '{"not":"read here"}\n');
    existing.createFilesAhead();
    expect(existsSync(join(dir, 'kept', 'events.jsonl'))).toBe(false);
    expect(readFileSync(kept, 'utf8')).toBe('{"not":"read here"}\n');
    expect(policy.syncs).toBe(2);
    existing.close();
  });

  test('an engine for a new instance has its conversation and runtime-event files before its first turn', async () => {
    const swarm = makeSwarm(['tester']);
    const { engine, paths, stateRoot } = await startEngine(makePlan(), { swarm: { ...swarm, durability: { ...swarm.durability, fsync: 'batch' } } });
    try {
      expect([paths.baseMessages, paths.messageEvents, paths.runtimeEvents].map((file) => existsSync(file))).toEqual([true, true, true]);
      expect((await engine.runTurn(userEvent('hello'))).finishReason).toBe('text_response');
    } finally {
      await engine.close();
      removeDir(stateRoot);
    }
  });
});
