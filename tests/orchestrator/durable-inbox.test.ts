import { describe, expect, spyOn, test } from 'bun:test';
import * as fs from 'node:fs';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import pino from 'pino';
import { Delivery, MAX_OPEN_INBOX_FILES } from '../../orchestrator/delivery/delivery.ts';
import { DurableInbox } from '../../orchestrator/delivery/durable-inbox.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-inbox-');
function inboxPath(): string {
  return join(tempDir(), 'nested', 'inbox.jsonl');
}

const event = (input: string) => makeEvent('api.input', { kind: 'api', name: 'test' }, { input });

describe('durable inbox (ARCHITECTURE §3)', () => {
  test('an appended event stays pending until acked, in arrival order', () => {
    const inbox = DurableInbox.open(inboxPath(), 'alpha', 'k1');
    const [a, b, c] = [event('a'), event('b'), event('c')];
    inbox.append(a);
    inbox.append(b);
    inbox.append(c);
    expect(inbox.ack(b.id)).toBe(true);
    expect(inbox.unacked().map((e) => e.input)).toEqual(['a', 'c']);
    expect(inbox.ack(b.id)).toBe(false);
  });

  test('a reopened inbox (daemon restart) recovers exactly the unacked events', () => {
    const path = inboxPath();
    const first = DurableInbox.open(path, 'alpha', 'k1');
    const [a, b] = [event('a'), event('b')];
    first.append(a);
    first.append(b);
    first.ack(a.id);
    first.close();
    const reopened = DurableInbox.open(path, 'alpha', 'k1');
    expect(reopened.unacked().map((e) => e.id)).toEqual([b.id]);
    expect(DurableInbox.peekIdentity(path)).toEqual({ agent: 'alpha', instanceKey: 'k1', pending: 1 });
  });

  test('records are staged and written together by commit(), at the latest on the next loop turn, in the order they happened', async () => {
    const path = inboxPath();
    const inbox = DurableInbox.open(path, 'alpha', 'k1');
    const [a, b] = [event('a'), event('b')];
    inbox.append(a);
    inbox.append(b);
    inbox.ack(a.id);
    expect(inbox.hasStaged).toBe(true);
    inbox.commit();
    expect(inbox.hasStaged).toBe(false);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).op)).toEqual(['put', 'put', 'ack']);
    expect(DurableInbox.open(path, 'alpha', 'k1').unacked().map((e) => e.id)).toEqual([b.id]);
    // Without a commit, the next loop turn writes what was staged (a lost ack only means a redelivery).
    inbox.ack(b.id);
    expect(DurableInbox.open(path, 'alpha', 'k1').unacked().map((e) => e.id)).toEqual([b.id]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(DurableInbox.open(path, 'alpha', 'k1').unacked()).toEqual([]);
  });

  test('malformed lines are skipped and reported, not fatal', () => {
    const path = inboxPath();
    const inbox = DurableInbox.open(path, 'alpha', 'k1');
    const good = event('good');
    inbox.append(good);
    inbox.commit();
    appendFileSync(path, '{not json\n{"op":"put","agent":"alpha","instanceKey":"k1","event":{"id":1}}\n');
    const bad: number[] = [];
    const reopened = DurableInbox.open(path, 'alpha', 'k1', (line) => bad.push(line));
    expect(reopened.unacked().map((e) => e.id)).toEqual([good.id]);
    expect(bad).toEqual([2, 3]);
  });

  test('a dead-lettered ack records its reason', () => {
    const path = inboxPath();
    const inbox = DurableInbox.open(path, 'alpha', 'k1');
    const poison = event('poison');
    inbox.append(poison);
    inbox.ack(poison.id, 'crashed 3 times');
    expect(readFileSync(path, 'utf8')).toContain('"dead":"crashed 3 times"');
    expect(DurableInbox.peekIdentity(path)).toBeUndefined();
  });
});

describe('delivery keeps a bounded number of inbox files open', () => {
  test(`beyond ${MAX_OPEN_INBOX_FILES} instances the least recently used inbox files close, and reopen on their next write`, () => {
    const stateRoot = tempDir();
    const delivery = new Delivery({ stateRoot, workspaceId: 'ws', logger: pino({ level: 'silent' }) });
    const inboxes = Array.from({ length: MAX_OPEN_INBOX_FILES + 20 }, (_, i) => {
      const inbox = delivery.inbox({ agent: 'agent', instanceKey: `k${i}` });
      inbox.append(event(`e${i}`));
      inbox.commit();
      return inbox;
    });
    expect(inboxes.filter((i) => i.isOpen).length).toBeLessThanOrEqual(MAX_OPEN_INBOX_FILES + 1);
    expect(inboxes[0]?.isOpen).toBe(false);
    inboxes[0]?.append(event('again'));
    inboxes[0]?.commit();
    expect(inboxes[0]?.isOpen).toBe(true);
    expect(DurableInbox.open(inboxes[0]?.path ?? '', 'agent', 'k0').unacked().map((e) => e.input)).toEqual(['e0', 'again']);
    delivery.close();
  });
});

describe('compaction under durability.fsync: batch syncs the new file when a pending record may have been promised', () => {
  /** Appends `held`, optionally lets an fsync run, then settles events until the file is rewritten; counts fsyncs before the rename. */
  function compactAround(held: ReturnType<typeof event>, fsyncAfterHeld: boolean): { fsyncsBeforeRename: number | undefined; unacked: string[] } {
    const path = inboxPath();
    const policy = new FsyncPolicy('batch');
    const inbox = DurableInbox.open(path, 'alpha', 'k1', undefined, policy, 20);
    const rename = fs.renameSync;
    const fsyncs = spyOn(fs, 'fsyncSync');
    let fsyncsBeforeRename: number | undefined;
    const renames = spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      fsyncsBeforeRename ??= fsyncs.mock.calls.length;
      rename(from, to);
    });
    try {
      inbox.append(held);
      inbox.commit();
      if (fsyncAfterHeld) policy.barrier();
      // Synchronous: the batch timer cannot fire in between.
      for (let i = 0; i < 20 && fsyncsBeforeRename === undefined; i++) {
        const passing = event(`e${i}`);
        inbox.append(passing);
        inbox.ack(passing.id);
        inbox.commit();
      }
    } finally {
      fsyncs.mockRestore();
      renames.mockRestore();
    }
    inbox.close();
    return { fsyncsBeforeRename, unacked: DurableInbox.open(path, 'alpha', 'k1').unacked().map((e) => e.id) };
  }

  test('a pending record staged before an fsync ran may be on disk (and promised): the new file is fsynced before it replaces the old', () => {
    const held = event('held');
    const result = compactAround(held, true);
    // One fsync is the barrier's; the next one must be the new file's, before the rename.
    expect(result.fsyncsBeforeRename).toBe(2);
    expect(result.unacked).toEqual([held.id]);
  });

  test('when no fsync ran since the oldest pending record was staged, none was on disk or promised: the rewrite costs no fsync', () => {
    const held = event('held');
    const result = compactAround(held, false);
    expect(result.fsyncsBeforeRename).toBe(0);
    expect(result.unacked).toEqual([held.id]);
  });
});
