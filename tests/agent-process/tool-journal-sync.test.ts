/**
 * The tool-call journal's `started` record is on disk before a handler may act on the world — for
 * a tool not declared idempotent. An idempotent tool's call skips that disk round (issue 12): after
 * a crash it runs again whether or not its record survived, so waiting for the disk buys nothing.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolJournal } from '../../agent-process/tools/tool-journal.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ToolJournal.started', () => {
  test('a non-idempotent call is synced before the handler runs', () => {
    const policy = new FsyncPolicy('batch');
    const journal = new ToolJournal(join(dir, 'effect.jsonl'), policy);
    journal.started('msg_1', 'call_1', 'bash__exec', { command: 'rm x' }, false);
    expect(policy.syncs).toBe(1);
    expect(journal.lookup('msg_1', 'call_1')).toEqual({ state: 'started' });
    journal.close();
  });

  test('an idempotent call is written (read back after a restart) but not synced on its own', () => {
    const policy = new FsyncPolicy('batch');
    const path = join(dir, 'idempotent.jsonl');
    const journal = new ToolJournal(path, policy);
    journal.started('msg_1', 'call_1', 'agents__request', { target: 'beta', input: 'hi' }, true);
    expect(policy.syncs).toBe(0);
    expect(readFileSync(path, 'utf8')).toContain('"tool.call.started"');
    expect(new ToolJournal(path, new FsyncPolicy('never')).lookup('msg_1', 'call_1')).toEqual({ state: 'started' });
    journal.close();
  });
});
